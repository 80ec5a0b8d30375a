// SPDX-License-Identifier: Apache-2.0
// cuguard::torch's ATen-style accessors with real tensors: chained subscripts as ATen's, every
// subscript checked with a report naming the tensor and the indices so far, ATen's own accessor
// accepted by a kernel parameter and named by its position, size_t indices, the named factories.
#include <torch/types.h> // torch::RestrictPtrTraits, as an extension's <torch/extension.h> gives it
#include <cuguard/torch.hpp>
#include <doctest/doctest.h>

#include "torch_support.hpp"

#include <cstdint>
#include <string>

// ATen's packed_accessor<...>() is deprecated; extensions such as the LLTM tutorial still call it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace accessor_tests {

using torch_test_support::first_line;
using torch_test_support::message_of;

/// What a failed host access throws (checks on: the default host policy throws).
template <class Call>
std::string violation_of(Call call) {
  try {
    call();
  } catch (const cuguard::violation_error& e) {
    return e.what();
  }
  return "no violation";
}

// out[n][c] = 2 * in[n][c], written in ATen's accessor style (size_t indices, RestrictPtrTraits).
__global__ void twice_kernel(const cuguard::torch::PackedTensorAccessor<float, 2, torch::RestrictPtrTraits, size_t> in,
                             cuguard::torch::PackedTensorAccessor<float, 2, torch::RestrictPtrTraits, size_t> out,
                             int extra) {
  const int n = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < static_cast<int>(in.size(1)) + extra) out[n][c] = 2 * in[n][c]; // accessor-test-read
}

// A __device__ helper that takes the TensorAccessor of one row, as ATen code does.
__device__ float row_sum(cuguard::torch::TensorAccessor<const float, 1, cuguard::torch::DefaultPtrTraits, std::int32_t> row) {
  float s = 0;
  for (std::int32_t j = 0; j < row.size(0); ++j) s += row[j];
  return s;
}

__global__ void row_sums_kernel(cuguard::torch::PackedTensorAccessor32<const float, 2> in,
                                cuguard::torch::PackedTensorAccessor32<float, 1> out) {
  const int n = static_cast<int>(threadIdx.x);
  if (n < in.size(0)) out[n] = row_sum(in[n]);
}

} // namespace accessor_tests
using namespace accessor_tests;

TEST_CASE("chained subscripts read and write a tensor's elements as ATen's accessor does") {
  at::Tensor t = at::arange(24, at::kFloat).reshape({2, 3, 4}).permute({2, 0, 1}); // [4, 2, 3], strided
  const auto ours = cuguard::torch::packed_accessor64<float, 3>(t, "t");
  const auto aten = t.packed_accessor64<float, 3>();
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 0; k < 3; ++k) CHECK(ours[i][j][k] == aten[i][j][k]);
  for (std::int64_t d = 0; d < 3; ++d) {
    CHECK(ours.size(d) == aten.size(d));
    CHECK(ours.stride(d) == aten.stride(d));
  }
  CHECK(ours.sizes() == t.sizes());
  CHECK(ours.strides() == t.strides());
  CHECK(ours[1].sizes() == t[1].sizes());
  CHECK(ours[1][1].data() == t[1][1].data_ptr<float>());
  CHECK(ours[3].size(1) == 3);
  CHECK(ours[3].stride(0) == aten[3].stride(0));
  auto w = cuguard::torch::packed_accessor64<float, 3>(t, "t");
  w[3][1][2] = -1.0f;
  CHECK(t[3][1][2].item<float>() == -1.0f);
  const auto tr = ours.transpose(0, 2);
  CHECK(tr.size(0) == 3);
  CHECK(tr[2][1][3] == ours[3][1][2]);
  CHECK(std::string(ours.label()) == "t");
}

TEST_CASE("a subscript past a leading dimension reports the tensor, the indices so far, the dimension and the line") {
  const at::Tensor gates = at::zeros({4, 3, 16});
  const auto a = cuguard::torch::packed_accessor32<const float, 3>(gates, "gates");
  const int line = __LINE__ + 1;
  const std::string said = violation_of([&] { (void)a[1][5]; });
  CHECK(first_line(said) ==
        "cuguard: out-of-bounds subscript of 'gates' const float[4, 3, 16] at [1][5]: dim 1 index 5 >= extent 3");
  CHECK(said.find("torch_accessor.test.cpp:" + std::to_string(line)) != std::string::npos);
  CHECK(first_line(violation_of([&] { (void)a[-1]; })) ==
        "cuguard: out-of-bounds subscript of 'gates' const float[4, 3, 16] at [-1]: dim 0 index -1 < 0");
}

TEST_CASE("the last subscript reports every index of the element") {
  const at::Tensor gates = at::zeros({4, 3, 16});
  const auto a = cuguard::torch::packed_accessor32<const float, 3>(gates, "gates");
  const std::string said = violation_of([&] { (void)a[3][2][16]; });
  CHECK(first_line(said) ==
        "cuguard: out-of-bounds access to 'gates' const float[4, 3, 16] at (3, 2, 16): dim 2 index 16 >= extent 16");
  CHECK(violation_of([&] { (void)a[3][2][15]; }) == "no violation");
}

TEST_CASE("an accessor with size_t indices reports a negative index as negative") {
  const at::Tensor x = at::zeros({5});
  const cuguard::torch::PackedTensorAccessor<const float, 1, cuguard::torch::DefaultPtrTraits, size_t> a =
      x.packed_accessor<float, 1, at::DefaultPtrTraits, size_t>(); // of float, to an accessor of const float
  const int minus_one = -1;
  CHECK(first_line(violation_of([&] { (void)a[minus_one]; })).find("at (-1): dim 0 index -1 < 0") != std::string::npos);
}

TEST_CASE("a kernel parameter accepts ATen's accessor, and a report names it by its position and kernel") {
  const at::Tensor in = at::arange(12, at::kFloat).reshape({2, 6});
  at::Tensor out = at::zeros({2, 6});
  const auto run = [&](int extra) {
    cuguard::torch::launch(twice_kernel, dim3(1, 2), 8, in.packed_accessor<float, 2, torch::RestrictPtrTraits, size_t>(),
                           out.packed_accessor<float, 2, torch::RestrictPtrTraits, size_t>(), extra);
  };
  CHECK(message_of<c10::Error>([&] { run(0); }) == "no error");
  CHECK(at::equal(out, 2 * in));
  const std::string said = message_of<c10::IndexError>([&] { run(1); });
  CHECK(first_line(said) ==
        "cuguard: out-of-bounds access to 'argument 1 of twice_kernel' float[2, 6] at (0, 6): dim 1 index 6 >= extent 6");
  CHECK(said.find("torch_accessor.test.cpp:") != std::string::npos);
  CHECK(message_of<c10::Error>([&] { run(0); }) == "no error");
}

TEST_CASE("a device helper taking a row's TensorAccessor gets the row of a named accessor") {
  const at::Tensor in = at::arange(6, at::kFloat).reshape({3, 2});
  at::Tensor out = at::zeros({3});
  cuguard::torch::launch(row_sums_kernel, 1, 4, cuguard::torch::packed_accessor32<const float, 2>(in, "in"),
                         cuguard::torch::packed_accessor32<float, 1>(out, "out"));
  CHECK(at::equal(out, in.sum(1)));
}

TEST_CASE("a named accessor of a bad tensor is a ValueError naming it") {
  const at::Tensor ids = at::zeros({3}, at::kLong);
  CHECK(first_line(message_of<c10::ValueError>([&] { (void)cuguard::torch::packed_accessor32<const float, 1>(ids, "ids"); })) ==
        "'ids' has dtype Long, expected Float");
  CHECK(first_line(message_of<c10::ValueError>([&] { (void)cuguard::torch::packed_accessor64<const std::int64_t, 2>(ids, "ids"); })) ==
        "'ids' has 1 dimensions, expected 2");
}

TEST_CASE("on_device is true for the tensors this build's kernels use") {
  CHECK(cuguard::torch::on_device(at::zeros({1})) == cuguard::emulated);
}
