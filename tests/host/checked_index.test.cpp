// SPDX-License-Identifier: Apache-2.0
// Tests of checked_index, index_from and bounded.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>

TEST_CASE("index_from returns the value read from the index view") {
  std::int64_t idx[3] = {2, 0, 1};
  auto indices = cuguard::make_view(idx, {3}, "idx");
  auto i = cuguard::index_from(indices, 0);
  static_assert(std::is_same_v<decltype(i), cuguard::checked_index<std::int64_t>>);
  CHECK(i.value() == 2);
  CHECK(static_cast<std::int64_t>(i) == 2);
}

TEST_CASE("a checked_index indexes a view like an integer") {
  float data[4] = {10, 11, 12, 13};
  int idx[2] = {3, 1};
  auto v = cuguard::make_view(data, {4}, "data");
  auto indices = cuguard::make_view(idx, {2}, "idx");
  CHECK(v(cuguard::index_from(indices, 0)) == 13.0f);
  CHECK(v[cuguard::index_from(indices, 1)] == 11.0f);
}

TEST_CASE("arithmetic on a checked_index gives a plain integer") {
  const cuguard::checked_index<int> i(4);
  auto j = i + 1;
  static_assert(std::is_same_v<decltype(j), int>);
  CHECK(j == 5);
}

CUGUARD_CHECKED_TEST("an access with an index from an index view reports where the index came from") {
  float table[4 * 2] = {};
  std::int32_t mask[6] = {0, 1, 2, 3, 1, 4};
  auto embeddings = cuguard::make_view(table, {4, 2}, "embeddings");
  auto mask_idx = cuguard::make_view(mask, {6}, "mask_idx");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)embeddings(cuguard::index_from(mask_idx, 5), 1)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.origin == cuguard::index_origin::index_view);
  CHECK(std::string(c.report.origin_label) == "mask_idx");
  CHECK(c.report.origin_rank == 1);
  CHECK(c.report.origin_index[0] == 5);
  CHECK(c.what == "cuguard: out-of-bounds access to 'embeddings' float[4, 2] at (4, 1): dim 0 index 4 >= extent 4\n"
                  "  index 4 came from 'mask_idx'[5]" + at);
}

CUGUARD_CHECKED_TEST("the origin of an index in a later dimension is reported for that dimension") {
  float data[2 * 3] = {};
  int idx[2][2] = {{0, 1}, {2, 7}};
  auto v = cuguard::make_view(data, {2, 3}, "v");
  auto index = cuguard::make_view(&idx[0][0], {2, 2}, "index");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(1, cuguard::index_from(index, 1, 1)));
  REQUIRE(c.thrown);
  CHECK(c.report.dim == 1);
  CHECK(c.what.find("\n  index 7 came from 'index'[1, 1]") != std::string::npos);
}

CUGUARD_CHECKED_TEST("a plain index in the failing dimension has no origin line") {
  float data[2 * 3] = {};
  int idx[1] = {0};
  auto v = cuguard::make_view(data, {2, 3}, "v");
  auto index = cuguard::make_view(idx, {1}, "index");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(cuguard::index_from(index, 0), 3));
  REQUIRE(c.thrown);
  CHECK(c.report.origin == cuguard::index_origin::none);
  CHECK(c.what.find("came from") == std::string::npos);
}

CUGUARD_CHECKED_TEST("index_from checks its own position in the index view") {
  int idx[2] = {0, 1};
  auto mask_idx = cuguard::make_view(idx, {2}, "mask_idx");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::index_from(mask_idx, 2)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: out-of-bounds access to 'mask_idx' int32[2] at (2): dim 0 index 2 >= extent 2" + at);
}

TEST_CASE("bounded accepts a value below its bound") {
  auto i = cuguard::bounded(3, 4);
  CHECK(i.value() == 3);
}

CUGUARD_CHECKED_TEST("bounded rejects a value equal to its bound where it is made") {
  cuguard_test::caught c;
  const int n = 4;
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(n, 4)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(c.report.op == cuguard::operation::bounded);
  CHECK(c.what == "cuguard: out-of-bounds index: bounded(4, 4) needs 0 <= value < 4" + at);
}

CUGUARD_CHECKED_TEST("bounded rejects a negative value") {
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(-1, 4));
  CHECK(c.thrown);
}

CUGUARD_CHECKED_TEST("an access with a bounded index whose bound exceeds the extent names the bound") {
  float data[3] = {};
  auto v = cuguard::make_view(data, {3}, "v");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v[cuguard::bounded(3, 8)]); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.origin == cuguard::index_origin::bounded);
  CHECK(c.what == "cuguard: out-of-bounds access to 'v' float[3] at (3): dim 0 index 3 >= extent 3\n"
                  "  index 3 was checked against bound 8" + at);
}

CUGUARD_UNCHECKED_TEST("with checks off a checked_index is exactly its value") {
  CHECK(sizeof(cuguard::checked_index<int>) == sizeof(int));
  CHECK(sizeof(cuguard::checked_index<std::int64_t>) == sizeof(std::int64_t));
}

CUGUARD_UNCHECKED_TEST("with checks off bounded does not check") {
  CHECK(cuguard::bounded(9, 4).value() == 9);
}

TEST_CASE("index_from takes the position as an array") {
  int idx[2][2] = {{5, 6}, {7, 8}};
  auto index = cuguard::make_view(&idx[0][0], {2, 2}, "index");
  const std::int64_t position[2] = {1, 0};
  CHECK(cuguard::index_from(index, position).value() == 7);
}

CUGUARD_CHECKED_TEST("a checked_index widened to int64 keeps its origin") {
  float data[4] = {};
  int idx[3] = {0, 1, 9};
  auto v = cuguard::make_view(data, {4}, "v");
  auto index = cuguard::make_view(idx, {3}, "idx");
  const cuguard::checked_index<std::int64_t> wide(cuguard::index_from(index, 2));
  const cuguard::checked_index<std::int64_t> coords[1] = {wide};
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.at(coords));
  REQUIRE(c.thrown);
  CHECK(std::string(c.report.origin_label) == "idx");
  CHECK(c.report.origin_index[0] == 2);
}
