// SPDX-License-Identifier: Apache-2.0
// The bindings of rasterizer_style.cu and optimizer_style.cu, as extensions write them.
#include <torch/extension.h>

#include <vector>

std::vector<torch::Tensor> bin_items(torch::Tensor first, torch::Tensor count);
torch::Tensor block_prefix(torch::Tensor x);
int multi_tensor_scale(std::vector<at::Tensor> in, std::vector<at::Tensor> out, double scale, int64_t planted);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("bin_items", &bin_items, "(tile, item) keys of every item's tiles, sorted, and their items");
  m.def("block_prefix", &block_prefix, "inclusive prefix sums within each block of 128");
  m.def("multi_tensor_scale", &multi_tensor_scale, "out[t] = in[t] * scale; 1 where an input is not finite");
}
