// SPDX-License-Identifier: Apache-2.0
// Tests of expect_contiguous, expect_shape and the vector accesses load<N> / store<N>.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>

using cuguard::violation_kind;

namespace contiguity_tests {
struct alignas(16) buffer {
  float v[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
};
} // namespace contiguity_tests

TEST_CASE("expect_contiguous accepts a contiguous view") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {4, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_contiguous(v));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("expect_contiguous rejects a transposed view and names the strides it expected") {
  contiguity_tests::buffer b;
  auto t = cuguard::make_view(b.v, {2, 8}, "x").transpose(0, 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_contiguous(t)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::non_contiguous);
  CHECK(c.what == "cuguard: non-contiguous 'x' float[8, 2] strides [1, 8]: expected strides [2, 1]" + at);
}

CUGUARD_UNCHECKED_TEST("with checks off expect_contiguous is not evaluated") {
  contiguity_tests::buffer b;
  auto t = cuguard::make_view(b.v, {2, 8}, "x").transpose(0, 1);
  cuguard::expect_contiguous(t); // would abort or throw if it were evaluated
  CHECK_FALSE(t.is_contiguous());
}

CUGUARD_CHECKED_TEST("expect_shape names the first dimension that differs") {
  contiguity_tests::buffer b;
  auto h0 = cuguard::make_view(b.v, {1, 4, 4}, "h0");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_shape(h0, {2, 4, 4})); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::shape_mismatch);
  CHECK(c.report.dim == 0);
  CHECK(c.what == "cuguard: shape mismatch in expect_shape of 'h0' float[1, 4, 4]: expected [2, 4, 4]: dim 0 extent 1 != 2" + at);
}

CUGUARD_CHECKED_TEST("expect_shape with another rank reports the ranks") {
  contiguity_tests::buffer b;
  auto x = cuguard::make_view(b.v, {4, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::expect_shape(x, {4, 2, 2}));
  REQUIRE(c.thrown);
  CHECK(c.report.dim == -1);
  CHECK(c.what.find(": expected [4, 2, 2]: rank 2 != 3") != std::string::npos);
  CUGUARD_TEST_CATCH(c, cuguard::expect_shape(x, {4, 4}));
  CHECK_FALSE(c.thrown);
}

TEST_CASE("load<4> reads four consecutive elements of the innermost dimension") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {4, 4}, "x");
  auto q = v.load<4>(2, 0);
  CHECK(q[0] == 8.0f);
  CHECK(q[3] == 11.0f);
}

TEST_CASE("store<2> writes two consecutive elements") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {4, 4}, "x");
  v.store<2>(cuguard::vec<float, 2>{{-1.0f, -2.0f}}, 1, 2);
  CHECK(b.v[6] == -1.0f);
  CHECK(b.v[7] == -2.0f);
  CHECK(b.v[8] == 8.0f);
}

CUGUARD_CHECKED_TEST("load<4> rejects a range that runs past the innermost extent") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {2, 6}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.load<2>(0, 5)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.op == cuguard::operation::vector_load);
  CHECK(c.what == "cuguard: out-of-bounds vector load of 2 elements from 'x' float[2, 6] at (0, 5): dim 1 range [5, 7) "
                  "exceeds extent 6" + at);
}

CUGUARD_CHECKED_TEST("load<4> rejects a view whose innermost stride is not 1") {
  contiguity_tests::buffer b;
  auto t = cuguard::make_view(b.v, {4, 4}, "x").transpose(0, 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)t.load<4>(0, 0)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::non_contiguous);
  CHECK(c.what == "cuguard: non-contiguous vector load of 4 elements from 'x' float[4, 4] at (0, 0): inner stride 4 is not 1" + at);
}

CUGUARD_CHECKED_TEST("store<4> rejects an address that is not 16-byte aligned") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {16}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, v.store<4>(cuguard::vec<float, 4>{}, 1)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::misaligned);
  char address[32];
  std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(b.v + 1)));
  CHECK(c.what == std::string("cuguard: misaligned vector store of 4 elements to 'x' float[16] at (1): address ") + address +
                      " is not 16-byte aligned" + at);
  CHECK(b.v[1] == 1.0f); // nothing was written
}

CUGUARD_CHECKED_TEST("load<2> accepts an 8-byte aligned offset") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {16}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.load<2>(14));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("a vector load whose outer index is out of range names that dimension") {
  contiguity_tests::buffer b;
  auto v = cuguard::make_view(b.v, {2, 8}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.load<4>(2, 0)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: out-of-bounds vector load of 4 elements from 'x' float[2, 8] at (2, 0): dim 0 index 2 >= "
                  "extent 2" + at);
}
