// SPDX-License-Identifier: Apache-2.0
// Tests of <cuguard/expect.hpp>: expect_contiguous and expect_shape.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>

using cuguard::violation_kind;

TEST_CASE("expect_contiguous accepts a contiguous view") {
  cuguard_test::aligned_floats b;
  auto v = cuguard::make_view(b.v, {4, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_contiguous(v));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("expect_contiguous rejects a transposed view and names the strides it expected") {
  cuguard_test::aligned_floats b;
  auto t = cuguard::make_view(b.v, {2, 8}, "x").transpose(0, 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_contiguous(t)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::non_contiguous);
  CHECK(c.what == "cuguard: non-contiguous 'x' float[8, 2] strides [1, 8]: expected strides [2, 1]" + at);
}

CUGUARD_UNCHECKED_TEST("with checks off expect_contiguous is not evaluated") {
  cuguard_test::aligned_floats b;
  auto t = cuguard::make_view(b.v, {2, 8}, "x").transpose(0, 1);
  cuguard::expect_contiguous(t); // would abort or throw if it were evaluated
  CHECK_FALSE(t.is_contiguous());
}

CUGUARD_CHECKED_TEST("expect_shape names the first dimension that differs") {
  cuguard_test::aligned_floats b;
  auto h0 = cuguard::make_view(b.v, {1, 4, 4}, "h0");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_shape(h0, {2, 4, 4})); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::shape_mismatch);
  CHECK(c.report.dim == 0);
  CHECK(c.what == "cuguard: shape mismatch in expect_shape of 'h0' float[1, 4, 4]: expected [2, 4, 4]: dim 0 extent 1 != 2" + at);
}

CUGUARD_CHECKED_TEST("expect_shape with another rank reports the ranks") {
  cuguard_test::aligned_floats b;
  auto x = cuguard::make_view(b.v, {4, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_shape(x, {4, 2, 2}));
  REQUIRE(c.thrown);
  CHECK(c.report.dim == -1);
  CHECK(c.what.find(": expected [4, 2, 2]: rank 2 != 3") != std::string::npos);
  CUGUARD_TEST_CATCH(c, cuguard::expect_shape(x, {4, 4}));
  CHECK_FALSE(c.thrown);
}

