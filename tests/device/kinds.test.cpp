// SPDX-License-Identifier: Apache-2.0
// Every violation kind found in device code goes through the report channel with the kernel's line.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using cuguard::violation_kind;
using device_test_support::checked;

namespace device_tests {

enum class planted { non_contiguous, shape_mismatch, null_data, index_overflow, invalid_argument, bounded };

// Thread 0 of block 0 plants one violation of device-side view operations.
__global__ void plant(cuguard::checked_view<float, 2> x, planted what) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  float* none = nullptr;
  switch (what) {
    case planted::non_contiguous: cuguard::expect_contiguous(x.transpose(0, 1)); break;
    case planted::shape_mismatch: cuguard::expect_shape(x, {4, 5}); break;
    case planted::null_data: (void)cuguard::make_view(none, {4}, "null_tile"); break;
    case planted::index_overflow: (void)cuguard::checked_view<float, 1, int>(x.data(), {3000000000LL}, "huge"); break;
    case planted::invalid_argument: (void)x.slice(3, 0, 1); break;
    case planted::bounded: (void)cuguard::bounded(9, 4); break;
  }
}
constexpr unsigned plant_first_line = __LINE__ - 8;

// A slice past the end, then a write through it.
__global__ void write_through_bad_slice(cuguard::checked_view<float, 2> x) {
  if (threadIdx.x != 0) return;
  auto rows = x.slice(0, 2, 9);
  rows(0, 0) = 1.0f;
}

} // namespace device_tests

CUGUARD_CHECKED_TEST("a view operation that failed in device code stops the thread, or gives an empty view whose accesses are reported too") {
  cuguard::device_buffer<float> buf(4 * 4, "x");
  buf.fill_bytes(0);
  cuguard::launch(device_tests::write_through_bad_slice, 1, 32, buf.view({4, 4}));
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.op == cuguard::operation::slice);
  if (cuguard::device_violation_policy == cuguard::device_policy::proceed)
    CHECK(c.report.count == 2); // the slice, then the write through the empty result
  else
    CHECK(c.report.count == 1); // the thread stopped at the slice
  std::vector<float> host = buf.to_host();
  CHECK(host[8] == 0.0f); // nothing was written
}

CUGUARD_CHECKED_TEST("every kind of violation found in device code is recorded with the kernel's line") {
  struct expectation {
    device_tests::planted what;
    violation_kind kind;
    unsigned line;
  };
  const unsigned first = device_tests::plant_first_line;
  const expectation cases[] = {
      {device_tests::planted::non_contiguous, violation_kind::non_contiguous, first},
      {device_tests::planted::shape_mismatch, violation_kind::shape_mismatch, first + 1},
      {device_tests::planted::null_data, violation_kind::null_data, first + 2},
      {device_tests::planted::index_overflow, violation_kind::index_overflow, first + 3},
      {device_tests::planted::invalid_argument, violation_kind::invalid_argument, first + 4},
      {device_tests::planted::bounded, violation_kind::out_of_bounds, first + 5},
  };
  cuguard::device_buffer<float> buf(4 * 4, "x");
  for (const expectation& e : cases) {
    CAPTURE(static_cast<int>(e.kind));
    cuguard::launch(device_tests::plant, 1, 32, buf.view({4, 4}), e.what);
    const auto c = checked();
    REQUIRE(c.thrown);
    CHECK(c.report.kind == e.kind);
    CHECK(c.report.line == e.line);
    CHECK(c.report.on_device);
    CHECK(c.report.count == 1);
    CHECK(std::string(c.report.launch.kernel) == "device_tests::plant");
    if (e.what == device_tests::planted::bounded) CHECK(c.report.dim == -1); // names no dimension
    if (e.what == device_tests::planted::non_contiguous) CHECK(c.report.dim == -1);
  }
}
