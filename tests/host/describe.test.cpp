// SPDX-License-Identifier: Apache-2.0
// Tests of describe(view) and operator<<.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <sstream>
#include <string>

TEST_CASE("describe prints label, type, shape, strides, contiguity and memory space on one line" *
          cuguard_test::host_memory_suite()) {
  float data[6] = {};
  auto v = cuguard::make_view(data, {2, 3}, "x");
  if (cuguard::checks_enabled) {
    // Where a CUDA runtime can tell (nvcc builds on a machine with a GPU), stack memory is host memory.
    const std::string space =
        v.space() == cuguard::memory_space::host ? "host memory" : "memory space unknown";
    CHECK(cuguard::describe(v) == "'x' float[2, 3], strides [3, 1], contiguous, " + space);
  } else {
    CHECK(cuguard::describe(v) == "float[2, 3], strides [3, 1], contiguous");
  }
}

TEST_CASE("describe says when a view is not contiguous") {
  float data[6] = {};
  auto t = cuguard::make_view(data, {2, 3}, "x").transpose(0, 1);
  CHECK(cuguard::describe(t).find("float[3, 2], strides [1, 3], not contiguous") != std::string::npos);
}

TEST_CASE("describe names const element types") {
  const int data[2] = {};
  auto v = cuguard::make_view(data, {2}, "idx");
  CHECK(cuguard::describe(v).find("const int32[2]") != std::string::npos);
}

CUGUARD_CHECKED_TEST("describe names the memory space and device of a tracked allocation") {
  float data[2] = {};
  cuguard::track(data, sizeof data, "dev", cuguard::memory_space::device, 1);
  auto v = cuguard::make_view(data, {2}, "v");
  CHECK(cuguard::describe(v) == "'v' float[2], strides [1], contiguous, device 1 memory");
  cuguard::release(data);
}

TEST_CASE("operator<< writes describe(view)") {
  double data[4] = {};
  auto v = cuguard::make_view(data, {4}, "y");
  std::ostringstream os;
  os << v;
  CHECK(os.str() == cuguard::describe(v));
}

TEST_CASE("a user type without a type_name is called element") {
  struct pair {
    int a, b;
  };
  pair p[2] = {};
  CHECK(cuguard::describe(cuguard::make_view(p, {2}, "p")).find("element[2]") != std::string::npos);
}
