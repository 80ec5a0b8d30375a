// SPDX-License-Identifier: Apache-2.0
// Tests of <cuguard/vec.hpp>: the vector accesses load<N> / store<N> of a view.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>

using cuguard::violation_kind;

TEST_CASE("load<4> reads four consecutive elements of the innermost dimension") {
  cuguard_test::aligned_floats b;
  auto v = cuguard::make_view(b.v, {4, 4}, "x");
  auto q = v.load<4>(2, 0);
  CHECK(q[0] == 8.0f);
  CHECK(q[3] == 11.0f);
}

TEST_CASE("store<2> writes two consecutive elements") {
  cuguard_test::aligned_floats b;
  auto v = cuguard::make_view(b.v, {4, 4}, "x");
  v.store<2>(cuguard::vec<float, 2>{{-1.0f, -2.0f}}, 1, 2);
  CHECK(b.v[6] == -1.0f);
  CHECK(b.v[7] == -2.0f);
  CHECK(b.v[8] == 8.0f);
}

CUGUARD_CHECKED_TEST("load<4> rejects a range that runs past the innermost extent") {
  cuguard_test::aligned_floats b;
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
  cuguard_test::aligned_floats b;
  auto t = cuguard::make_view(b.v, {4, 4}, "x").transpose(0, 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)t.load<4>(0, 0)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::non_contiguous);
  CHECK(c.what == "cuguard: non-contiguous vector load of 4 elements from 'x' float[4, 4] at (0, 0): inner stride 4 is not 1" + at);
}

CUGUARD_CHECKED_TEST("store<4> rejects an address that is not 16-byte aligned") {
  cuguard_test::aligned_floats b;
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
  cuguard_test::aligned_floats b;
  auto v = cuguard::make_view(b.v, {16}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.load<2>(14));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("a vector load whose outer index is out of range names that dimension") {
  cuguard_test::aligned_floats b;
  auto v = cuguard::make_view(b.v, {2, 8}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.load<4>(2, 0)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: out-of-bounds vector load of 4 elements from 'x' float[2, 8] at (2, 0): dim 0 index 2 >= "
                  "extent 2" + at);
}
