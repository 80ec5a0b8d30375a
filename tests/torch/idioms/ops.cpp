// SPDX-License-Identifier: Apache-2.0
// The bindings of rasterizer_style.cu and optimizer_style.cu, as extensions write them: a pybind11
// module, one op registered for the CUDA dispatch key (TORCH_LIBRARY_IMPL, as xformers does), and
// calls of the CUDA runtime API from the bindings themselves.
#include <cuda_runtime_api.h>
#include <torch/extension.h>

#include <vector>

std::vector<torch::Tensor> bin_items(torch::Tensor first, torch::Tensor count);
torch::Tensor block_prefix(torch::Tensor x, bool dynamic);
torch::Tensor uniform(int64_t n, int64_t seed, torch::Tensor like);
torch::Tensor dropout(torch::Tensor x, double keep);
torch::Tensor optional_or_one(torch::Tensor opt, int64_t n);
int multi_tensor_scale(std::vector<at::Tensor> in, std::vector<at::Tensor> out, double scale, int64_t planted);
at::Tensor apply_multiply(at::Tensor a, at::Tensor b);
at::Tensor pair_sums(at::Tensor x);
at::Tensor pair_max(at::Tensor x);
at::Tensor half_total(at::Tensor x);

// A copy through a buffer of cudaMalloc from the bindings, which call the runtime API themselves
// (OpenPCDet's iou3d_nms.cpp: cudaMalloc, cudaMemcpy, cudaGetLastError).
torch::Tensor copied_by_runtime(torch::Tensor x) {
  auto out = torch::empty_like(x);
  void* buffer = nullptr;
  const size_t bytes = x.numel() * x.element_size();
  TORCH_CHECK(cudaMalloc(&buffer, bytes) == cudaSuccess, "cudaMalloc");
  cudaMemcpy(buffer, x.data_ptr(), bytes, cudaMemcpyDeviceToDevice);
  cudaMemcpy(out.data_ptr(), buffer, bytes, cudaMemcpyDeviceToDevice);
  cudaFree(buffer);
  TORCH_CHECK(cudaGetLastError() == cudaSuccess, "cudaGetLastError");
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("bin_items", &bin_items, "(tile, item) keys of every item's tiles, sorted, and their items");
  m.def("block_prefix", &block_prefix, "inclusive prefix sums within each block of 128 (dynamic: over dynamic shared memory)");
  m.def("pair_sums", &pair_sums, "x[i] + x[i + 1] within a warp, through at::Half's __half");
  m.def("pair_max", &pair_max, "max(x[i], x[i + 1]) within a warp, compared as at::Half");
  m.def("half_total", &half_total, "the sum of 32 halves by atomicAdd of __half");
  m.def("apply_multiply", &apply_multiply, "a * b through ATen's CUDA_tensor_apply2");
  m.def("uniform", &uniform, "n uniform numbers in (0, 1] from cuRAND, one thread each");
  m.def("dropout", &dropout, "x / keep or 0, drawn from ATen's CUDA generator's Philox state");
  m.def("optional_or_one", &optional_or_one, "opt[i], or 1 where opt is empty (a null pointer)");
  m.def("copied_by_runtime", &copied_by_runtime, "x copied through cudaMalloc'd memory by the bindings");
  m.def("multi_tensor_scale", &multi_tensor_scale, "out[t] = in[t] * scale; 1 where an input is not finite");
}

TORCH_LIBRARY(cuguard_idioms, m) { m.def("pair_sums(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(cuguard_idioms, CUDA, m) { m.impl("pair_sums", &pair_sums); }
