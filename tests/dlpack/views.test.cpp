// SPDX-License-Identifier: Apache-2.0
// Views of DLPack tensors made by hand, one bad field at a time (needs dlpack.h: Debian's
// libdlpack-dev; reported as skipped without it).
#include "support.hpp"

#include <doctest/doctest.h>

#include <string>

#if __has_include(<dlpack/dlpack.h>)
#include <cuguard/dlpack.hpp>

#include <cstdint>
#include <vector>

namespace dlpack_tests {

/// A float32 tensor [2, 3] over `data`, row-major with null strides, on the CPU.
struct tensor {
  std::int64_t shape[3] = {2, 3, 0};
  std::int64_t strides[3] = {3, 1, 0};
  DLTensor t{};
  explicit tensor(void* data) {
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = 2;
    t.dtype = {static_cast<std::uint8_t>(kDLFloat), 32, 1};
    t.shape = shape;
    t.strides = nullptr;
    t.byte_offset = 0;
  }
};

/// The first line of the argument_error that `call` throws, after checking that its last line
/// names this file and `line`; "no argument_error" if none.
template <class Call>
std::string first_line(int line, Call call) {
  try {
    call();
  } catch (const cuguard::argument_error& e) {
    const std::string what = e.what();
    const std::string at = "\n  at " __FILE__ ":" + std::to_string(line) + " in ";
    const auto cut = what.find(at);
    return cut == std::string::npos ? "no caller line in: " + what : what.substr(0, cut);
  }
  return "no argument_error";
}

} // namespace dlpack_tests
using dlpack_tests::first_line;
using dlpack_tests::tensor;

TEST_CASE("a view of a DLTensor has its shape, row-major strides for null ones, and its data") {
  std::vector<float> data = {0, 1, 2, 3, 4, 5};
  tensor x(data.data());
  const auto v = cuguard::make_view<const float, 2>(x.t, "x");
  CHECK(v.extent(0) == 2);
  CHECK(v.extent(1) == 3);
  CHECK(v.stride(0) == 3);
  CHECK(v.stride(1) == 1);
  CHECK(v(1, 2) == 5.0f);
  CHECK(std::string(v.label()) == (cuguard::checks_enabled ? "x" : ""));
  // Strides as given (a transposed tensor), and byte_offset: element (0, 0) is data[1].
  x.shape[0] = 3;
  x.shape[1] = 2;
  x.strides[0] = 1;
  x.strides[1] = 3;
  x.t.strides = x.strides;
  x.t.byte_offset = sizeof(float);
  const auto w = cuguard::make_view<float, 2>(x.t, "xt");
  CHECK(w.stride(0) == 1);
  CHECK(w.stride(1) == 3);
  CHECK(&w(0, 0) == &data[1]);
  CHECK(w(1, 1) == 5.0f);
}

TEST_CASE("a DLTensor without elements may have null data") {
  tensor x(nullptr);
  x.shape[0] = 0;
  const auto v = cuguard::make_view<float, 2>(x.t, "empty");
  CHECK(v.empty());
  CHECK(v.data() == nullptr);
}

TEST_CASE("integer, bool and double tensors map to their DLPack codes") {
  std::int64_t ids[2] = {4, 5};
  tensor x(ids);
  x.shape[0] = 2;
  x.t.ndim = 1;
  x.t.dtype = {static_cast<std::uint8_t>(kDLInt), 64, 1};
  CHECK(cuguard::make_view<const std::int64_t, 1>(x.t, "ids")(1) == 5);
  x.t.dtype = {static_cast<std::uint8_t>(kDLUInt), 8, 1};
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<const std::int64_t, 1>(x.t, "ids"); }) ==
        "'ids' has dtype uint8, expected int64 (a view of int64)");
  CHECK(cuguard::make_view<const unsigned char, 1>(x.t, "bytes").extent(0) == 2);
  x.t.dtype = {static_cast<std::uint8_t>(kDLFloat), 64, 1};
  CHECK(cuguard::make_view<const double, 1>(x.t, "doubles").extent(0) == 2);
  x.t.dtype = {static_cast<std::uint8_t>(cuguard::detail::dlpack_type<bool>::code), 8, 1};
  CHECK(cuguard::make_view<const bool, 1>(x.t, "mask").extent(0) == 2);
}

TEST_CASE("each bad field of a DLTensor is an argument_error naming the tensor, the value and what was expected") {
  std::vector<float> data(6);
  tensor x(data.data());
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 3>(x.t, "x"); }) == "'x' has 2 dimensions, expected 3");
  x.t.dtype.bits = 16;
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) == "'x' has dtype float16, expected float32 (a view of float)");
  x.t.dtype = {static_cast<std::uint8_t>(kDLFloat), 32, 4};
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) == "'x' has dtype float32x4, expected float32 (a view of float)");
  x.t.dtype = {static_cast<std::uint8_t>(kDLBfloat), 16, 1};
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) == "'x' has dtype bfloat16, expected float32 (a view of float)");
  x.t.dtype = {static_cast<std::uint8_t>(kDLFloat), 32, 1};
  x.t.device = {kDLOpenCL, 0};
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) ==
        "'x' is on DLPack device type 4, expected kDLCPU, kDLCUDA, kDLCUDAHost or kDLCUDAManaged");
  x.t.device = {kDLCPU, 0};
  x.t.byte_offset = 2;
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) == "'x' has byte_offset 2, not a multiple of the element size 4");
  x.t.byte_offset = 0;
  x.strides[0] = -3;
  x.t.strides = x.strides;
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) ==
        "'x' has stride -3 in dim 0: negative strides are not supported (make a contiguous copy)");
  x.t.strides = nullptr;
  x.t.shape = nullptr;
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) == "'x' has no shape (null) for 2 dimensions");
  x.t.shape = x.shape;
  CHECK(first_line(__LINE__, [&] { (void)cuguard::make_view<float, 2>(x.t, "x"); }) == "no argument_error");
}

CUGUARD_CHECKED_TEST("a DLTensor's shape goes through the view's own checks") {
  std::vector<float> data(6);
  tensor x(data.data());
  x.shape[1] = -3;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view<float, 2>(x.t, "x"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::invalid_argument);
  CHECK(c.report.dim == 1);
  // A tracked allocation the tensor does not fit in.
  x.shape[1] = 4;
  cuguard::track(data.data(), 6 * sizeof(float), "storage");
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view<float, 2>(x.t, "x"));
  cuguard::release(data.data());
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(c.what.rfind("cuguard: out-of-bounds view 'x' float[2, 4]: it spans bytes [0, 32) of allocation 'storage' of 24 bytes", 0) == 0);
}

TEST_CASE("this dlpack.h's rule for null strides") {
  // Every header before 1.2 reads null strides as row-major; 1.2 forbids them for ndim != 0.
  CHECK(cuguard::detail::dlpack_null_strides_allowed(0, 6));
  CHECK(cuguard::detail::dlpack_null_strides_allowed(1, 1));
  CHECK_FALSE(cuguard::detail::dlpack_null_strides_allowed(1, 2));
  CHECK_FALSE(cuguard::detail::dlpack_null_strides_allowed(2, 0));
}

#else
TEST_CASE("DLPack views" * doctest::skip(true)) {
  MESSAGE("dlpack/dlpack.h not found (Debian: libdlpack-dev): DLPack views not tested");
}
#endif
