// SPDX-License-Identifier: Apache-2.0
// The bindings of ops.cu, as the tutorial writes them; CHECK_CUDA asks cuguard::torch::on_device,
// which is is_cuda() in a GPU build and accepts CPU tensors under emulation.
#include <torch/extension.h>
#include <cuguard/torch.hpp>

#include <vector>

torch::Tensor sigmoid_scale_forward(torch::Tensor x, torch::Tensor w, int64_t planted);
std::vector<torch::Tensor> sigmoid_scale_backward(torch::Tensor grad_y, torch::Tensor x, torch::Tensor w);

#define CHECK_CUDA(x) TORCH_CHECK(cuguard::torch::on_device(x), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
  CHECK_CUDA(x);       \
  CHECK_CONTIGUOUS(x)

torch::Tensor forward(torch::Tensor x, torch::Tensor w, int64_t planted) {
  CHECK_INPUT(x);
  CHECK_INPUT(w);
  return sigmoid_scale_forward(x, w, planted);
}

std::vector<torch::Tensor> backward(torch::Tensor grad_y, torch::Tensor x, torch::Tensor w) {
  CHECK_INPUT(grad_y);
  CHECK_INPUT(x);
  CHECK_INPUT(w);
  return sigmoid_scale_backward(grad_y, x, w);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "y = sigmoid(x) * w");
  m.def("backward", &backward, "the gradients of forward");
}
