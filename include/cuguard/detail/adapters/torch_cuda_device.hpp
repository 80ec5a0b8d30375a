// SPDX-License-Identifier: Apache-2.0
// ATen's CUDA device helpers with their meaning under emulation, for an extension's .cu files
// built unchanged (the headers of detail/adapters/aten_cuda/ include this one): gpuAtomicAdd and
// its family (<ATen/cuda/Atomic.cuh>), fastAtomicAdd (<ATen/native/cuda/KernelUtils.cuh>), the
// WARP_* shuffles (<ATen/cuda/DeviceUtils.cuh>) and CUDA_KERNEL_LOOP, GET_BLOCKS
// (<ATen/cuda/detail/KernelUtils.h>). Each is the CUDA operation it names, so emulation's checks
// (races, masks, a sanitized build's accesses) see what a GPU would run.
#pragma once

#include <cuguard/config.hpp>
#if !CUGUARD_IMPL_EMULATION
#  error "ATen's CUDA headers stand-ins (cuguard/detail/adapters/aten_cuda) are for builds under emulation only"
#endif
#include <cuguard/emulation.hpp>

#include <c10/macros/Macros.h>

#include <algorithm>
#include <cstdint>

/// `*address += value` atomically, for every type ATen's gpuAtomicAdd takes (the integers of
/// every width, float, double, at::Half, at::BFloat16, bool); returns the old value.
template <typename T, typename U>
inline T gpuAtomicAdd(T* address, U value) {
  const T v = static_cast<T>(value);
  return ::cuguard::detail::engine::atomic_update(address, [v](T old) { return static_cast<T>(old + v); },
                                                  __builtin_return_address(0));
}
/// The same, where the old value is not needed.
template <typename T, typename U>
inline void gpuAtomicAddNoReturn(T* address, U value) {
  gpuAtomicAdd(address, value);
}
template <typename T, typename U>
inline T gpuAtomicMul(T* address, U value) {
  const T v = static_cast<T>(value);
  return ::cuguard::detail::engine::atomic_update(address, [v](T old) { return static_cast<T>(old * v); },
                                                  __builtin_return_address(0));
}
template <typename T, typename U>
inline T gpuAtomicMax(T* address, U value) {
  const T v = static_cast<T>(value);
  return ::cuguard::detail::engine::atomic_update(address, [v](T old) { return old < v ? v : old; },
                                                  __builtin_return_address(0));
}
template <typename T, typename U>
inline T gpuAtomicMin(T* address, U value) {
  const T v = static_cast<T>(value);
  return ::cuguard::detail::engine::atomic_update(address, [v](T old) { return v < old ? v : old; },
                                                  __builtin_return_address(0));
}

namespace at {
namespace native {
/// `tensor[index] += value` atomically, as ATen's (the fast path is a GPU's, the sum the same).
template <typename scalar_t, typename index_t>
inline void fastAtomicAdd(scalar_t* tensor, index_t index, const index_t /*numel*/, scalar_t value,
                          bool /*fast_atomics*/) {
  gpuAtomicAddNoReturn(tensor + index, value);
}
} // namespace native
} // namespace at

namespace at::cuda::detail { // (ATen's, not cuguard's)
/// Threads a block, and blocks for N elements, as ATen's launch helpers count them.
constexpr int CUDA_NUM_THREADS = 1024;
inline int GET_BLOCKS(const std::int64_t N, const std::int64_t max_threads_per_block = CUDA_NUM_THREADS) {
  return static_cast<int>((std::max<std::int64_t>(N, 1) + max_threads_per_block - 1) / max_threads_per_block);
}
} // namespace at::cuda::detail

/// A grid-stride loop over [0, n), as ATen's.
#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type)                                                           \
  int64_t _i_n_d_e_x = blockIdx.x * blockDim.x + threadIdx.x;                                              \
  for (index_type i = _i_n_d_e_x; _i_n_d_e_x < (n); _i_n_d_e_x += blockDim.x * gridDim.x, i = _i_n_d_e_x)
#define CUDA_KERNEL_LOOP(i, n) CUDA_KERNEL_LOOP_TYPE(i, n, int)

// ATen's warp shuffles: CUDA's, every lane in the mask.
template <typename T>
inline T WARP_SHFL(T value, int srcLane, int width = warpSize, unsigned mask = 0xffffffff) {
  return __shfl_sync(mask, value, srcLane, width);
}
template <typename T>
inline T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize, unsigned mask = 0xffffffff) {
  return __shfl_xor_sync(mask, value, laneMask, width);
}
template <typename T>
inline T WARP_SHFL_UP(T value, unsigned delta, int width = warpSize, unsigned mask = 0xffffffff) {
  return __shfl_up_sync(mask, value, delta, width);
}
template <typename T>
inline T WARP_SHFL_DOWN(T value, unsigned delta, int width = warpSize, unsigned mask = 0xffffffff) {
  return __shfl_down_sync(mask, value, delta, width);
}
inline unsigned WARP_BALLOT(int predicate, unsigned mask = 0xffffffff) { return __ballot_sync(mask, predicate); }
