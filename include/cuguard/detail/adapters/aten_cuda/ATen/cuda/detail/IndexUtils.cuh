// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/detail/IndexUtils.cuh> under emulation: Torch's header, and the one function of it that
// only a CUDA build of Torch defines (libtorch_cuda), maybeOverlappingIndices, defined here (weak:
// each translation unit may hold it). cuguard.torch puts this folder ahead of Torch's headers.
#pragma once

#include_next <ATen/cuda/detail/IndexUtils.cuh> // IWYU pragma: export

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace at::cuda::detail { // (ATen's, not cuguard's)
/// True where two of the tensor's indices may reach one element: its dimensions of more than one
/// element, by stride, each stride at least the span of the dimensions below it (false: no overlap).
__attribute__((weak)) bool maybeOverlappingIndices(const at::TensorBase& t) {
  std::vector<std::pair<std::int64_t, std::int64_t>> dims; // (stride, size)
  for (std::int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  std::sort(dims.begin(), dims.end());
  std::int64_t span = 1; // the elements the smaller strides reach, plus one
  for (const auto& [stride, size] : dims) {
    if (stride < span) return true;
    span = stride * (size - 1) + span;
  }
  return false;
}
} // namespace at::cuda::detail
