// SPDX-License-Identifier: Apache-2.0
// Views of versioned DLPack tensors (DLManagedTensorVersioned, DLPack 1.x), against the dlpack.h
// a CUDA build of PyTorch carries (ATen/dlpack.h, included first: cuguard/dlpack.hpp uses the
// header the program already has). Built only where that header is found (dlpack.v1).
#include <ATen/dlpack.h>
#include <cuguard/dlpack.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

static_assert(DLPACK_MAJOR_VERSION == 1, "this test is for a DLPack 1.x header");

namespace dlpack_v1_tests {

/// A float32 tensor [2, 3] over `data`, on the CPU, of this header's version, with strides.
struct tensor {
  std::int64_t shape[2] = {2, 3};
  std::int64_t strides[2] = {3, 1};
  DLManagedTensorVersioned m{};
  explicit tensor(void* data) {
    m.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    m.dl_tensor.data = data;
    m.dl_tensor.device = {kDLCPU, 0};
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype = {static_cast<std::uint8_t>(kDLFloat), 32, 1};
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = strides;
  }
};

/// The first line of the argument_error that `call` throws ("no argument_error" if none).
template <class Call>
std::string first_line(Call call) {
  try {
    call();
  } catch (const cuguard::argument_error& e) {
    const std::string what = e.what();
    return what.substr(0, what.find('\n'));
  }
  return "no argument_error";
}

} // namespace dlpack_v1_tests
using dlpack_v1_tests::first_line;
using dlpack_v1_tests::tensor;

TEST_CASE("a versioned DLPack tensor is viewed with its shape, strides and data") {
  std::vector<float> data = {0, 1, 2, 3, 4, 5};
  tensor x(data.data());
  const auto v = cuguard::make_view<float, 2>(x.m, "x");
  CHECK(v.extent(0) == 2);
  CHECK(v.stride(0) == 3);
  CHECK(v(1, 2) == 5.0f);
  CHECK(std::string(v.label()) == "x");
  CHECK(cuguard::detail::dlpack_header_major == 1);
  CHECK(cuguard::detail::dlpack_header_minor == DLPACK_MINOR_VERSION);
}

TEST_CASE("a read-only tensor is viewed only as const") {
  std::vector<float> data(6);
  tensor x(data.data());
  x.m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK(first_line([&] { (void)cuguard::make_view<float, 2>(x.m, "x"); }) ==
        "'x' is read-only (DLPACK_FLAG_BITMASK_READ_ONLY): view it as const float");
  CHECK(cuguard::make_view<const float, 2>(x.m, "x").extent(1) == 3);
}

TEST_CASE("another major version is refused; null strides follow the tensor's own version") {
  std::vector<float> data = {0, 1, 2, 3, 4, 5};
  tensor x(data.data());
  x.m.version = {2, 0};
  CHECK(first_line([&] { (void)cuguard::make_view<const float, 2>(x.m, "x"); }) ==
        "'x' has DLPack version 2.0, but this dlpack.h is 1." + std::to_string(DLPACK_MINOR_VERSION) +
            ": another major version has another layout (call only its deleter)");
  x.m.dl_tensor.strides = nullptr;
  x.m.version = {1, 1}; // before 1.2: null strides are row-major
  const auto v = cuguard::make_view<const float, 2>(x.m, "x");
  CHECK(v.stride(0) == 3);
  CHECK(v(1, 0) == 3.0f);
  x.m.version = {1, 2};
  CHECK(first_line([&] { (void)cuguard::make_view<const float, 2>(x.m, "x"); }) ==
        "'x' has null strides, which DLPack 1.2 and later do not allow for ndim != 0");
  // A bare DLTensor has no version: this header's (1.2 or later here) decides.
  CHECK(first_line([&] { (void)cuguard::make_view<const float, 2>(x.m.dl_tensor, "x"); }) ==
        "'x' has null strides, which DLPack 1.2 and later do not allow for ndim != 0");
}

TEST_CASE("bool is kDLBool in a 1.x header") {
  bool mask[3] = {true, false, true};
  tensor x(mask);
  x.m.dl_tensor.ndim = 1;
  x.shape[0] = 3;
  x.strides[0] = 1;
  x.m.dl_tensor.dtype = {static_cast<std::uint8_t>(kDLBool), 8, 1};
  CHECK(cuguard::make_view<const bool, 1>(x.m, "mask")(2));
  x.m.dl_tensor.dtype = {static_cast<std::uint8_t>(kDLUInt), 8, 1};
  CHECK(first_line([&] { (void)cuguard::make_view<const bool, 1>(x.m, "mask"); }) ==
        "'mask' has dtype uint8, expected bool (a view of bool)");
}
