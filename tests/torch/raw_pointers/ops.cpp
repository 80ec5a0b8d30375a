// SPDX-License-Identifier: Apache-2.0
// The bindings of ops.cu, as extensions write them (a CHECK_CUDA of their own, x.is_cuda(); an
// emulated build's copy of this file reads it as x.is_cpu(), cuguard/emulate.py's translate_host).
// No cuguard header: the file is the extension's, unchanged.
#include <torch/extension.h>

torch::Tensor fps(torch::Tensor src, torch::Tensor ptr, int64_t per_batch, int64_t planted);
torch::Tensor gather_rows(torch::Tensor src, torch::Tensor index, int64_t planted);
torch::Tensor twice(torch::Tensor x, int64_t planted);
torch::Tensor optional_or_one(torch::Tensor opt, int64_t n);
void poke(torch::Tensor x, int64_t offset, int64_t wild);
torch::Tensor quotient(torch::Tensor x, int64_t divisor);
torch::Tensor as_int(torch::Tensor x);
torch::Tensor shifted(torch::Tensor x, int64_t by);
void axpy_slices(torch::Tensor x, torch::Tensor y, int64_t planted);
void scale_list(std::vector<torch::Tensor> tensors, double by, int64_t planted);

void plus_one_launcher(const float* in, float* out, int64_t n);
torch::Tensor norms(torch::Tensor points, int64_t planted);

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")

torch::Tensor fps_op(torch::Tensor src, torch::Tensor ptr, int64_t per_batch, int64_t planted) {
  CHECK_CUDA(src);
  CHECK_CUDA(ptr);
  return fps(src, ptr, per_batch, planted);
}

torch::Tensor gather_rows_op(torch::Tensor src, torch::Tensor index, int64_t planted) {
  CHECK_CUDA(src);
  CHECK_CUDA(index);
  return gather_rows(src, index, planted);
}

torch::Tensor twice_op(torch::Tensor x, int64_t planted) {
  CHECK_CUDA(x);
  return twice(x, planted);
}

// in + 1, its data pointers taken here and passed to a launcher in ops.cu (told of one element
// more than `input` holds where planted).
torch::Tensor plus_one(torch::Tensor input, int64_t planted) {
  CHECK_CUDA(input);
  TORCH_CHECK(input.scalar_type() == torch::kFloat && input.is_contiguous(), "input: contiguous float");
  auto output = torch::empty_like(input);
  plus_one_launcher(input.data_ptr<float>(), output.data_ptr<float>(), input.numel() + planted);
  return output;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("fps", &fps_op, "farthest point sampling");
  m.def("gather_rows", &gather_rows_op, "rows of src by index");
  m.def("twice", &twice_op, "2 x, through float4");
  m.def("optional_or_one", &optional_or_one, "opt[i], or 1 where opt is empty (a null pointer)");
  m.def("quotient", &quotient, "x / divisor, integers");
  m.def("as_int", &as_int, "x as int, converted implicitly");
  m.def("shifted", &shifted, "x << by, 32-bit integers");
  m.def("norms", &norms, "the norm of each point, read as a vec3 through a cast");
  m.def("plus_one", &plus_one, "input + 1, through a launcher given raw pointers");
  m.def("axpy_slices", &axpy_slices, "y += 2 x, in place");
  m.def("scale_list", &scale_list, "each tensor *= by, in place, through a table of void*");
  m.def("poke", &poke, "stores 1.0f at offset bytes from x's first element (or at the address wild)");
}
