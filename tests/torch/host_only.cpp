// SPDX-License-Identifier: Apache-2.0
// An extension's binding file, compiled by the host compiler against a CUDA build of Torch (no
// kernels: it views its tensor arguments, CUDA tensors among them, and hands them on). The test
// torch.cuda_headers compiles it; it is never run.
#include <cuguard/torch.hpp>

#include <cstdint>

cuguard::checked_view<const float, 2> view_weight(const at::Tensor& weight) {
  return CUGUARD_TORCH_VIEW(weight, const float, 2);
}

cuguard::checked_view<std::int64_t, 1> view_ids(const at::Tensor& ids) {
  return cuguard::torch::view<std::int64_t, 1>(ids, "ids");
}
