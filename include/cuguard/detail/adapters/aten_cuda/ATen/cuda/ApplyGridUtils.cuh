// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/ApplyGridUtils.cuh> under emulation: ATenCeilDiv (the stand-in's, from
// detail/adapters/torch_cuda_host.hpp: one template, where Torch's header would add a second) and
// the apply kernels' grid and block sizes over the emulated device; a CPU tensor's device (-1) is
// the emulated device. cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_host.hpp> // IWYU pragma: export

#include <cstdint>

namespace at {
namespace cuda {
/// Threads per block and blocks per multiprocessor of ATen's apply kernels.
constexpr std::uint32_t AT_APPLY_THREADS_PER_BLOCK = 512;
constexpr std::uint32_t AT_APPLY_BLOCKS_PER_SM = 4;

/// The grid of an apply kernel over `totalElements`, `step` elements a thread: at most the
/// device's largest grid x. True (the emulated device is every tensor's).
template <int step = 1>
inline bool getApplyGrid(std::uint64_t totalElements, dim3& grid, std::int64_t /*curDevice*/,
                         int max_threads_per_block = AT_APPLY_THREADS_PER_BLOCK) {
  const std::uint64_t per_block = static_cast<std::uint64_t>(max_threads_per_block) * static_cast<std::uint64_t>(step);
  const std::uint64_t blocks = ATenCeilDiv(totalElements, per_block);
  const auto largest = static_cast<std::uint64_t>(getDeviceProperties()->maxGridSize[0]);
  grid = dim3(static_cast<unsigned>(blocks < largest ? blocks : largest));
  return true;
}
constexpr int getApplyBlocksPerSM() { return AT_APPLY_BLOCKS_PER_SM; }
constexpr int getApplyBlockSize() { return AT_APPLY_THREADS_PER_BLOCK; }
inline dim3 getApplyBlock(int max_threads_per_block = AT_APPLY_THREADS_PER_BLOCK) {
  return dim3(static_cast<unsigned>(max_threads_per_block));
}
} // namespace cuda
} // namespace at
