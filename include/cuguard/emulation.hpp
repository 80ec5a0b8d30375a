// SPDX-License-Identifier: Apache-2.0
// CUGUARD_EMULATION=1: native CUDA kernel sources compiled by a host compiler and run on CPU threads.
//
// Include this header (or <cuguard/cuguard.hpp>, which includes it in emulation builds) before
// any CUDA header. It defines the CUDA keywords (__global__, __device__, __shared__, ...), the
// built-in variables (threadIdx, blockIdx, blockDim, gridDim, warpSize: variables, set by the
// fiber scheduler, detail/emulation/grid_runner.hpp), __syncthreads(),
// atomics, warp intrinsics and __trap(); cuguard::launch runs the kernel. Dynamic shared memory
// is cuguard::dynamic_shared<T>() (portable to nvcc), not `extern __shared__`.
#pragma once

#if !defined(CUGUARD_EMULATION) || !CUGUARD_EMULATION
#  error "<cuguard/emulation.hpp> is for CUGUARD_EMULATION=1 builds"
#endif
#if defined(__CUDACC__)
#  error "CUGUARD_EMULATION=1 is for host compilers: an nvcc build runs its kernels on the GPU"
#endif

// CUDA keywords. The toolkit's headers keep these definitions when they are made first.
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __managed__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#undef __restrict__
#undef __grid_constant__
#define __global__
#define __device__
#define __host__
#define __shared__ thread_local // block scope: one per OS thread, and a block runs on one
#define __constant__
#define __managed__
// (__forceinline__: after <cuda_runtime.h> below.)
// __noinline__ stays undefined: libstdc++ spells __attribute__((__noinline__)) itself.
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __grid_constant__

#include <cuguard/config.hpp>

// The toolkit's host headers come before the built-in variables (detail/emulation/fiber.hpp): they use
// names such as gridDim for parameters, which -Wshadow would otherwise flag.
#include <cuguard/detail/emulation/runtime_templates.hpp> // (before <cuda_runtime.h>, whose templates call them)
#include <cuda_runtime.h>
// __forceinline__ is a hint: the host compiler compiles device functions' bodies, which nvcc's
// host pass never sees, and cannot always inline them (a recursive one: sputnik's Log2 in
// xformers). Defined after the toolkit's host_defines.h, which <cuda_runtime.h> includes once.
#undef __forceinline__
#define __forceinline__ inline
// The toolkit's <device_launch_parameters.h>, which sources may include themselves, declares the
// built-in variables as extern constants: here they are the emulation's (its guard, defined, makes
// that include a no-op).
#define __DEVICE_LAUNCH_PARAMETERS_H__

#include <cuguard/detail/emulation/integer_intrinsics.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/intrinsics.hpp>
#include <cuguard/detail/emulation/run_grid.hpp>
#include <cuguard/detail/emulation/simd_intrinsics.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/bulk_copies.hpp> // IWYU pragma: export (cuda::ptx's mbarriers, bulk copies)
#include <cuguard/detail/emulation/texture_fetch.hpp> // IWYU pragma: export (tex1Dfetch)

// CCCL marks loops for full unrolling, which under GCC is `#pragma GCC unroll 65534`: with every
// access of an emulated kernel a call, the unrolled bodies of CUB's radix sort take GCC's loop
// passes tens of minutes and gigabytes (the pass is quadratic in the blocks). Under emulation
// these loops are left to the optimizer (simd_intrinsics.hpp has included CCCL's configuration).
#undef _CCCL_PRAGMA_UNROLL
#define _CCCL_PRAGMA_UNROLL(_N)
#undef _CCCL_PRAGMA_UNROLL_FULL
#define _CCCL_PRAGMA_UNROLL_FULL()
#include <cuguard/detail/emulation/spin_waits.hpp> // IWYU pragma: export (sched_yield, nanosleep in kernels)

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE

namespace emulation {
/// True while the calling code runs as a thread of an emulated kernel.
inline bool in_kernel() noexcept { return detail::engine::current_thread != nullptr; }
} // namespace emulation

CUGUARD_IMPL_END_NAMESPACE

// ---------------------------------------------------------------------------------------------
// Built-in functions, as CUDA spells them (the built-in variables are in detail/emulation/fiber.hpp).
// ---------------------------------------------------------------------------------------------
inline constexpr int warpSize = 32;
/// What the translator (python/cuguard/emulate.py) writes for __CUDA_ARCH__ in a conditional that
/// selects device code (in a kernel's body, say): the emulated device's, an H100's 9.0.
#define CUGUARD_DEVICE_CUDA_ARCH 900
/// What the translator writes for __CUDACC__ in a .cu file and the headers translated with it:
/// defined, as nvcc defines it for both passes of a .cu file.
#define CUGUARD_IMPL_CUDACC 1
/// And for __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__: the toolkit's version.
#define CUGUARD_IMPL_CUDACC_VER_MAJOR (CUDART_VERSION / 1000)
#define CUGUARD_IMPL_CUDACC_VER_MINOR (CUDART_VERSION % 1000 / 10)
#define CUGUARD_IMPL_CUDACC_VER_BUILD 0
/// CUB's device code picks its tuning policy by CUB_PTX_ARCH (0 in host code, its lowest policy),
/// its host code by the device's PTX version (cudaFuncGetAttributes: the emulated device's 9.0):
/// the emulated device's here too, so that both sides of a device-wide algorithm pick the same.
#ifndef CUB_PTX_ARCH
#  define CUB_PTX_ARCH CUGUARD_DEVICE_CUDA_ARCH
#endif

// The caller's position (default arguments): a divergent barrier is reported at the barrier.
inline void __syncthreads(const char* file = __builtin_FILE(), const char* function = __builtin_FUNCTION(),
                          unsigned line = __builtin_LINE()) {
  ::cuguard::detail::engine::runner().barrier({file, function, line});
}
inline int __syncthreads_count(int predicate, const char* file = __builtin_FILE(),
                               const char* function = __builtin_FUNCTION(), unsigned line = __builtin_LINE()) {
  static thread_local int count;
  auto& r = ::cuguard::detail::engine::runner();
  r.barrier({file, function, line});
  count = 0;
  r.barrier({file, function, line});
  __atomic_fetch_add(&count, predicate ? 1 : 0, __ATOMIC_RELAXED);
  r.barrier({file, function, line});
  return count;
}
/// Non-zero where `predicate` is for every thread of the block (that has not exited).
inline int __syncthreads_and(int predicate, const char* file = __builtin_FILE(),
                             const char* function = __builtin_FUNCTION(), unsigned line = __builtin_LINE()) {
  return __syncthreads_count(!predicate, file, function, line) == 0;
}
/// Non-zero where `predicate` is for any thread of the block.
inline int __syncthreads_or(int predicate, const char* file = __builtin_FILE(),
                            const char* function = __builtin_FUNCTION(), unsigned line = __builtin_LINE()) {
  return __syncthreads_count(predicate, file, function, line) != 0;
}
// The warp-synchronous functions: each waits for the lanes of its mask (a lane outside its own
// mask, or a mask naming a lane that returned, is reported as synccheck reports it), with the
// caller's position for the report.
#define CUGUARD_IMPL_CALLER \
  const char *file = __builtin_FILE(), const char *function = __builtin_FUNCTION(), unsigned line = __builtin_LINE()
#define CUGUARD_IMPL_WARP_CALL(NAME) ::cuguard::detail::engine::warp_call{mask, {file, function, line}, NAME}
inline void __syncwarp(unsigned mask = 0xffffffffu, CUGUARD_IMPL_CALLER) {
  ::cuguard::detail::engine::runner().warp_barrier(CUGUARD_IMPL_WARP_CALL("__syncwarp"));
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
[[noreturn]] inline void __trap() { ::cuguard::detail::engine::runner().trap(); }
inline unsigned __activemask() { return ::cuguard::detail::engine::runner().active_mask(); }
inline unsigned __ballot_sync(unsigned mask, int predicate, CUGUARD_IMPL_CALLER) {
  return ::cuguard::detail::engine::runner().ballot(predicate != 0, CUGUARD_IMPL_WARP_CALL("__ballot_sync"));
}
inline int __any_sync(unsigned mask, int predicate, CUGUARD_IMPL_CALLER) {
  return ::cuguard::detail::engine::runner().ballot(predicate != 0, CUGUARD_IMPL_WARP_CALL("__any_sync")) != 0;
}
inline int __all_sync(unsigned mask, int predicate, CUGUARD_IMPL_CALLER) {
  unsigned voters = 0;
  const unsigned votes = ::cuguard::detail::engine::runner().ballot(predicate != 0, CUGUARD_IMPL_WARP_CALL("__all_sync"), &voters);
  return votes == voters; // every live lane of the mask voted yes
}
template <class T>
inline T __shfl_sync(unsigned mask, T value, int src_lane, int width = 32, CUGUARD_IMPL_CALLER) {
  namespace d = ::cuguard::detail::engine;
  const unsigned lane = d::lane();
  const unsigned base = lane - lane % static_cast<unsigned>(width);
  const unsigned src = base + static_cast<unsigned>(src_lane) % static_cast<unsigned>(width);
  return d::from_bits<T>(d::runner().exchange(d::to_bits(value), src, CUGUARD_IMPL_WARP_CALL("__shfl_sync")));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32, CUGUARD_IMPL_CALLER) {
  namespace d = ::cuguard::detail::engine;
  const unsigned lane = d::lane();
  unsigned src = lane ^ static_cast<unsigned>(lane_mask);
  if (src / static_cast<unsigned>(width) != lane / static_cast<unsigned>(width)) src = lane;
  return d::from_bits<T>(d::runner().exchange(d::to_bits(value), src, CUGUARD_IMPL_WARP_CALL("__shfl_xor_sync")));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = 32, CUGUARD_IMPL_CALLER) {
  namespace d = ::cuguard::detail::engine;
  const unsigned lane = d::lane(), w = static_cast<unsigned>(width);
  const unsigned src = (lane % w) + delta < w ? lane + delta : lane;
  return d::from_bits<T>(d::runner().exchange(d::to_bits(value), src, CUGUARD_IMPL_WARP_CALL("__shfl_down_sync")));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T value, unsigned delta, int width = 32, CUGUARD_IMPL_CALLER) {
  namespace d = ::cuguard::detail::engine;
  const unsigned lane = d::lane(), w = static_cast<unsigned>(width);
  const unsigned src = lane % w >= delta ? lane - delta : lane;
  return d::from_bits<T>(d::runner().exchange(d::to_bits(value), src, CUGUARD_IMPL_WARP_CALL("__shfl_up_sync")));
}
// The warp reductions of compute capability 8.0 (__reduce_add_sync, ...): every lane of the mask
// that has not exited deposits its value, and each gets the reduction of them all.
#define CUGUARD_IMPL_WARP_REDUCE(NAME, T, OP)                                                       \
  inline T NAME(unsigned mask, T value, CUGUARD_IMPL_CALLER) {                                    \
    T out = value;                                                                                \
    bool first = true;                                                                            \
    ::cuguard::detail::engine::runner().gather(                                                   \
        static_cast<std::uint64_t>(value), CUGUARD_IMPL_WARP_CALL(#NAME), [&](unsigned live, const std::uint64_t* words) { \
          for (unsigned l = 0; l < 32; ++l) {                                                     \
            if ((live >> l & 1u) == 0) continue;                                                  \
            const T v = static_cast<T>(words[l]);                                                 \
            out = first ? v : static_cast<T>(OP);                                                 \
            first = false;                                                                        \
          }                                                                                       \
        });                                                                                       \
    return out;                                                                                   \
  }
CUGUARD_IMPL_WARP_REDUCE(__reduce_add_sync, int, out + v)
CUGUARD_IMPL_WARP_REDUCE(__reduce_add_sync, unsigned, out + v)
CUGUARD_IMPL_WARP_REDUCE(__reduce_min_sync, int, v < out ? v : out)
CUGUARD_IMPL_WARP_REDUCE(__reduce_min_sync, unsigned, v < out ? v : out)
CUGUARD_IMPL_WARP_REDUCE(__reduce_max_sync, int, out < v ? v : out)
CUGUARD_IMPL_WARP_REDUCE(__reduce_max_sync, unsigned, out < v ? v : out)
CUGUARD_IMPL_WARP_REDUCE(__reduce_and_sync, unsigned, out & v)
CUGUARD_IMPL_WARP_REDUCE(__reduce_or_sync, unsigned, out | v)
CUGUARD_IMPL_WARP_REDUCE(__reduce_xor_sync, unsigned, out ^ v)
#undef CUGUARD_IMPL_WARP_REDUCE
/// The lanes of the mask (that have not exited) whose `value` has the calling lane's bits
/// (compute capability 7.0: nvdiffrast's binning).
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, CUGUARD_IMPL_CALLER) {
  const std::uint64_t mine = ::cuguard::detail::engine::to_bits(value);
  unsigned same = 0;
  ::cuguard::detail::engine::runner().gather(mine, CUGUARD_IMPL_WARP_CALL("__match_any_sync"),
                                             [&](unsigned live, const std::uint64_t* words) {
                                               for (unsigned l = 0; l < 32; ++l)
                                                 if ((live >> l & 1u) != 0 && words[l] == mine) same |= 1u << l;
                                             });
  return same;
}
/// The lanes of the mask (that have not exited) where all have the calling lane's value (*pred
/// true), else 0 (*pred false).
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred, CUGUARD_IMPL_CALLER) {
  const std::uint64_t mine = ::cuguard::detail::engine::to_bits(value);
  unsigned lanes = 0;
  bool all = true;
  ::cuguard::detail::engine::runner().gather(mine, CUGUARD_IMPL_WARP_CALL("__match_all_sync"),
                                             [&](unsigned live, const std::uint64_t* words) {
                                               lanes = live;
                                               for (unsigned l = 0; l < 32; ++l)
                                                 if ((live >> l & 1u) != 0 && words[l] != mine) all = false;
                                             });
  *pred = all ? 1 : 0;
  return all ? lanes : 0u;
}
#undef CUGUARD_IMPL_WARP_CALL
#undef CUGUARD_IMPL_CALLER

template <class T>
inline T __ldg(const T* p) { return *p; }

/// CUDA's atomicAdd exists for these element types only (int, unsigned int, unsigned long long,
/// float, double, __half, __nv_bfloat16): emulation rejects the others as nvcc does.
template <class T>
inline constexpr bool cuda_atomic_add_type_v =
    std::is_same<T, int>::value || std::is_same<T, unsigned int>::value ||
    std::is_same<T, unsigned long long>::value || std::is_same<T, float>::value || std::is_same<T, double>::value ||
    (!std::is_integral<T>::value && sizeof(T) == 2);
#define CUGUARD_IMPL_EMU_ADD_CHECK                                                                \
  static_assert(cuda_atomic_add_type_v<T>, "atomicAdd: CUDA has no atomicAdd for this type (64-bit signed " \
                                           "integers: add through unsigned long long)")
#define CUGUARD_IMPL_EMU_NO_CHECK static_assert(true)
// atomicAdd's sum: `old + v`, or for __half and __nv_bfloat16 __hadd (half_intrinsics.hpp's
// overloads, found at the atomic's instantiation), which holds where PyTorch's nvcc flags
// (__CUDA_NO_HALF_OPERATORS__) leave their `+` out.
template <class T>
inline T cuguard_impl_atomic_sum(T old, T v) {
  return static_cast<T>(old + v);
}
// Each atomic, and its _block and _system forms (one memory and one block of threads at a time
// here: every scope is the same).
#define CUGUARD_IMPL_EMU_ATOMIC_ONE(NAME, EXPR, CHECK)                                            \
  template <class T, class U>                                                                     \
  inline T NAME(T* address, U value) {                                                            \
    CHECK;                                                                                        \
    const T v = static_cast<T>(value);                                                            \
    return ::cuguard::detail::engine::atomic_update(address, [v](T old) { return EXPR; },       \
                                                    __builtin_return_address(0));                 \
  }
#define CUGUARD_IMPL_EMU_ATOMIC(NAME, EXPR, CHECK)                                                \
  CUGUARD_IMPL_EMU_ATOMIC_ONE(NAME, EXPR, CHECK)                                                  \
  CUGUARD_IMPL_EMU_ATOMIC_ONE(NAME##_block, EXPR, CHECK)                                          \
  CUGUARD_IMPL_EMU_ATOMIC_ONE(NAME##_system, EXPR, CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicAdd, cuguard_impl_atomic_sum(old, v), CUGUARD_IMPL_EMU_ADD_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicSub, static_cast<T>(old - v), CUGUARD_IMPL_EMU_NO_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicExch, ((void)old, v), CUGUARD_IMPL_EMU_NO_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicMax, old < v ? v : old, CUGUARD_IMPL_EMU_NO_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicMin, v < old ? v : old, CUGUARD_IMPL_EMU_NO_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicAnd, static_cast<T>(old & v), CUGUARD_IMPL_EMU_NO_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicOr, static_cast<T>(old | v), CUGUARD_IMPL_EMU_NO_CHECK)
CUGUARD_IMPL_EMU_ATOMIC(atomicXor, static_cast<T>(old ^ v), CUGUARD_IMPL_EMU_NO_CHECK)
// atomicInc / atomicDec: unsigned int, wrapping at `value` as CUDA's.
CUGUARD_IMPL_EMU_ATOMIC(atomicInc, old >= v ? T(0) : static_cast<T>(old + 1),
                        static_assert(std::is_same<T, unsigned int>::value, "atomicInc takes unsigned int"))
CUGUARD_IMPL_EMU_ATOMIC(atomicDec, (old == 0 || old > v) ? v : static_cast<T>(old - 1),
                        static_assert(std::is_same<T, unsigned int>::value, "atomicDec takes unsigned int"))
#undef CUGUARD_IMPL_EMU_ATOMIC
#undef CUGUARD_IMPL_EMU_ATOMIC_ONE
#undef CUGUARD_IMPL_EMU_NO_CHECK
#undef CUGUARD_IMPL_EMU_ADD_CHECK
#define CUGUARD_IMPL_EMU_CAS(NAME)                                                                \
  template <class T, class U, class V>                                                            \
  inline T NAME(T* address, U compare, V value) {                                                 \
    const ::cuguard::detail::engine::atomic_noted noted{address, __builtin_return_address(0)};   \
    T expected = static_cast<T>(compare);                                                         \
    __atomic_compare_exchange_n(address, &expected, static_cast<T>(value), false, __ATOMIC_SEQ_CST, \
                                __ATOMIC_SEQ_CST);                                                \
    return expected;                                                                              \
  }
CUGUARD_IMPL_EMU_CAS(atomicCAS)
CUGUARD_IMPL_EMU_CAS(atomicCAS_block)
CUGUARD_IMPL_EMU_CAS(atomicCAS_system)
#undef CUGUARD_IMPL_EMU_CAS

#if !defined(CUGUARD_IMPL_HOST_SOURCE) // (not in a host .cpp of an emulated target: cuguardEmulate.cmake)
// Device math that CUDA code calls unqualified: CUDA's own max and min overloads (not std::max,
// whose one template parameter rejects max(int, unsigned) where CUDA takes it).
#define CUGUARD_IMPL_EMU_MINMAX(T, U, R)                                                        \
  inline R max(T a, U b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a); } \
  inline R min(T a, U b) { return static_cast<R>(b) < static_cast<R>(a) ? static_cast<R>(b) : static_cast<R>(a); }
CUGUARD_IMPL_EMU_MINMAX(int, int, int)
CUGUARD_IMPL_EMU_MINMAX(unsigned int, unsigned int, unsigned int)
CUGUARD_IMPL_EMU_MINMAX(int, unsigned int, unsigned int)
CUGUARD_IMPL_EMU_MINMAX(unsigned int, int, unsigned int)
CUGUARD_IMPL_EMU_MINMAX(long, long, long)
CUGUARD_IMPL_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
CUGUARD_IMPL_EMU_MINMAX(long, unsigned long, unsigned long)
CUGUARD_IMPL_EMU_MINMAX(unsigned long, long, unsigned long)
CUGUARD_IMPL_EMU_MINMAX(long long, long long, long long)
CUGUARD_IMPL_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUGUARD_IMPL_EMU_MINMAX(long long, unsigned long long, unsigned long long)
CUGUARD_IMPL_EMU_MINMAX(unsigned long long, long long, unsigned long long)
CUGUARD_IMPL_EMU_MINMAX(float, float, float)
CUGUARD_IMPL_EMU_MINMAX(double, double, double)
CUGUARD_IMPL_EMU_MINMAX(float, double, double)
CUGUARD_IMPL_EMU_MINMAX(double, float, double)
#undef CUGUARD_IMPL_EMU_MINMAX
// The rest of CUDA's Math API that the C and C++ libraries lack: math functions, arithmetic in a
// named rounding mode, conversions and bit casts, the integer intrinsics of later architectures,
// and the loads and stores with cache hints.
#include <cuguard/detail/emulation/cache_hints.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/dpx_intrinsics.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/math_conversions.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/math_functions.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/math_rounding.hpp> // IWYU pragma: export
#endif
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

// Cooperative groups (the toolkit's <cooperative_groups.h> needs nvcc; this takes its place).
#include <cuguard/detail/emulation/cooperative_groups.hpp> // IWYU pragma: export
