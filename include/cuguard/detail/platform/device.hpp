// SPDX-License-Identifier: Apache-2.0
// The device-side seam, twin of the runtime's backend (detail/runtime/backend.hpp): what device
// code needs of where it runs, on three sides. The device (nvcc's device pass): built-in
// registers, PTX and CUDA's atomics. An emulated kernel's thread (CUGUARD_EMULATION=1): the
// emulated_thread the engine runs (detail/platform/emulated_thread.hpp). Host code: none of it
// runs there (in_kernel() is false). Views and checks use this, never the emulation engine.
#pragma once

#include <cuguard/config.hpp>

#if CUGUARD_IMPL_EMULATION
#  include <cuguard/detail/platform/emulated_thread.hpp>

#  include <cstdio> // printf, as device code has it
#endif

#include <cstddef>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace platform {

/// True in code that runs as part of a kernel: the device pass of nvcc, or an emulated kernel.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool in_kernel() noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  return true;
#elif CUGUARD_IMPL_EMULATION
  return running != nullptr;
#else
  return false;
#endif
}

#if CUGUARD_IMPL_DEVICE_PASS || CUGUARD_IMPL_EMULATION

/// Where the calling thread of a kernel runs: blockIdx and threadIdx.
struct position {
  unsigned block[3];
  unsigned thread[3];
};
CUGUARD_HOST_DEVICE inline position thread_position() noexcept {
#  if CUGUARD_IMPL_DEVICE_PASS
  return {{blockIdx.x, blockIdx.y, blockIdx.z}, {threadIdx.x, threadIdx.y, threadIdx.z}};
#  else
  const emulated_thread& t = *running;
  position p{{t.block[0], t.block[1], t.block[2]}, {0, 0, 0}};
  t.thread_idx(p.thread);
  return p;
#  endif
}

/// Ends the calling thread of a kernel: PTX `exit`, which releases a __syncthreads() that waits
/// only for it and takes it out of every warp-synchronous intrinsic's wait; under emulation its
/// fiber ends the same way.
[[noreturn]] CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void stop_thread() {
#  if CUGUARD_IMPL_DEVICE_PASS
  asm volatile("exit;" ::: "memory");
#  else
  running->engine->exit_thread(running->runner);
#  endif
  __builtin_unreachable();
}

/// __trap(): stops the whole grid.
[[noreturn]] CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void trap() {
#  if CUGUARD_IMPL_DEVICE_PASS
  __trap();
#  else
  running->engine->trap(running->runner);
#  endif
  __builtin_unreachable();
}

/// The atomics and the fence of the report channel (device memory; host memory under emulation).
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE unsigned long long atomic_add(unsigned long long* p,
                                                                           unsigned long long v) noexcept {
#  if CUGUARD_IMPL_DEVICE_PASS
  return atomicAdd(p, v);
#  else
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#  endif
}
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE unsigned atomic_cas(unsigned* p, unsigned expected, unsigned v) noexcept {
#  if CUGUARD_IMPL_DEVICE_PASS
  return atomicCAS(p, expected, v);
#  else
  __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected; // the value found, as atomicCAS returns it
#  endif
}
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE unsigned atomic_exchange(unsigned* p, unsigned v) noexcept {
#  if CUGUARD_IMPL_DEVICE_PASS
  return atomicExch(p, v);
#  else
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
#  endif
}
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE unsigned atomic_load(unsigned* p) noexcept {
#  if CUGUARD_IMPL_DEVICE_PASS
  return atomicAdd(p, 0u);
#  else
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
#  endif
}
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void fence_system() noexcept {
#  if CUGUARD_IMPL_DEVICE_PASS
  __threadfence_system();
#  else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#  endif
}

#endif // CUGUARD_IMPL_DEVICE_PASS || CUGUARD_IMPL_EMULATION

#if CUGUARD_IMPL_EMULATION
/// True if `p` points into the running block's shared memory (false outside emulated kernels).
inline bool is_shared(const void* p) noexcept {
  return running != nullptr && running->engine->is_shared(running->runner, p);
}

/// An access (`kind`) of `count` elements of `bytes` each at `p`, in the running block's shared
/// memory, for the race detector, from `site`; `describe(out, context)` says what it was, where
/// the detector may need that for a report.
inline void note_shared(void* p, std::size_t bytes, int count, access_kind kind, const source_site& site,
                        describe_access describe, const void* context) {
  running->engine->note_shared(running->runner, p, bytes, count, kind, site, describe, context);
}
#endif

} // namespace platform
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
