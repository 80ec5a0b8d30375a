// SPDX-License-Identifier: Apache-2.0
// A test-only extension module (pybind11, through torch/extension.h) for test_ops.py: views of
// DLPack capsules (torch.utils.dlpack.to_dlpack, or made by hand with ctypes), and an op that
// keeps a view of a tensor across calls, the bug that use_after_free reports.
#include <cuguard/torch.hpp>
#include <torch/extension.h>

#include <cuguard/dlpack.hpp>

#include <cstdint>
#include <sstream>
#include <string>

namespace {

/// The DLManagedTensor of a "dltensor" capsule (not consumed: its destructor still frees it).
const DLManagedTensor& managed_of(const py::capsule& capsule) {
  if (std::string(capsule.name() != nullptr ? capsule.name() : "") != "dltensor")
    throw std::invalid_argument("expected a capsule named 'dltensor'");
  return *static_cast<const DLManagedTensor*>(capsule.get_pointer());
}

/// The sum of a float32 matrix's elements, through a view of the capsule's tensor.
double dlpack_sum_f32_2d(const py::capsule& capsule) {
  const auto x = cuguard::make_view<const float, 2>(managed_of(capsule).dl_tensor, "x");
  double sum = 0;
  for (std::int64_t i = 0; i < x.extent(0); ++i)
    for (std::int64_t j = 0; j < x.extent(1); ++j) sum += x(i, j);
  return sum;
}

/// How a view of an int64 vector in the capsule reads: "'ids' int64[3], strides [1], ...".
std::string dlpack_describe_i64_1d(const py::capsule& capsule) {
  std::ostringstream out;
  out << cuguard::make_view<const std::int64_t, 1>(managed_of(capsule).dl_tensor, "ids");
  return out.str();
}

// A view kept from one call to the next: valid while its tensor lives.
cuguard::checked_view<const float, 1> kept;

__global__ void sum_kernel(cuguard::checked_view<const float, 1> in, cuguard::checked_view<float, 1> out) {
  float s = 0;
  for (std::int64_t i = 0; i < in.extent(0); ++i) s += in(i);
  out(0) = s;
}

void keep(const at::Tensor& t) { kept = CUGUARD_TORCH_VIEW(t, const float, 1); }

/// The sum of the kept tensor's elements, by a kernel.
double sum_kept() {
  at::Tensor out = at::zeros({1});
  cuguard::torch::launch(sum_kernel, 1, 1, kept, CUGUARD_TORCH_VIEW(out, float, 1));
  return out.item<double>();
}

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("dlpack_sum_f32_2d", &dlpack_sum_f32_2d);
  m.def("dlpack_describe_i64_1d", &dlpack_describe_i64_1d);
  m.def("keep", &keep);
  m.def("sum_kept", &sum_kept);
}
