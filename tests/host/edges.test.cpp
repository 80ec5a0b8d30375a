// SPDX-License-Identifier: Apache-2.0
// Arguments at the edges of their types: 32-bit views given 64-bit arguments, indices near the
// int64 maximum, unsigned values above it, views that reach into a tracked allocation from
// before it. Each was let through (or computed with undefined behaviour) once.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

using cuguard::violation_kind;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
} // namespace

CUGUARD_CHECKED_TEST("an int32 view checks a 64-bit select or slice argument before narrowing it") {
  float x[6] = {};
  const auto v = cuguard::make_view32(x, {2, 3}, "x");
  static_assert(std::is_same<decltype(v)::index_type, std::int32_t>::value, "make_view32 gives 32-bit indexing");
  cuguard_test::caught c;
  // 2^32 narrows to 0 in 32 bits: it used to select row 0.
  CUGUARD_TEST_CATCH(c, (void)v.select(0, std::int64_t{1} << 32));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.value == std::int64_t{1} << 32);
  CHECK(has(c.what, "dim 0 index 4294967296 >= extent 2"));
  CUGUARD_TEST_CATCH(c, (void)v.slice(1, 0, (std::int64_t{1} << 32) + 2));
  REQUIRE(c.thrown);
  CHECK(has(c.what, "dim 1 range [0, 4294967298) is not within [0, 3)"));
  CUGUARD_TEST_CATCH(c, (void)v.slice(1, 1, 3));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("make_view32 reports a shape that 32-bit indexing cannot hold") {
  float x[4] = {};
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view32(x, {std::int64_t{1} << 31}, "x"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(has(c.what, "dim 0 extent 2147483648 exceeds the index type's maximum 2147483647"));
  // Extents that fit, a largest offset that does not.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view32(x, {3}, {1 << 30}, "far"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.figure == cuguard::shape_figure::largest_offset);
}

CUGUARD_CHECKED_TEST("an empty slice at the end of a view of huge strides is empty, with no overflow") {
  float x[1] = {};
  // Largest offset 3 * 2^61 fits int64; 4 * 2^61 does not.
  const auto v = cuguard::make_strided_view(x, {4}, {std::int64_t{1} << 61}, "far");
  const auto s = v.slice(0, 4, 4);
  CHECK(s.empty());
  CHECK(s.data() == v.data());
}

CUGUARD_CHECKED_TEST("vector accesses far out of range are reported without forming their address") {
  alignas(16) float x[8] = {};
  const auto v = cuguard::make_view(x, {8}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.load<4>(INT64_MAX));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.dim == 0);
  // The range's end is past the int64 maximum: written as the number it is.
  CHECK(has(c.what, "dim 0 range [9223372036854775807, 9223372036854775811) exceeds extent 8"));
  CUGUARD_TEST_CATCH(c, v.store<4>(cuguard::vec<float, 4>{}, INT64_MIN));
  REQUIRE(c.thrown);
  CHECK(has(c.what, "dim 0 range [-9223372036854775808, -9223372036854775804) exceeds extent 8"));
  // A view of nothing over null data: no null + offset either.
  const cuguard::checked_view<float, 2> empty;
  CUGUARD_TEST_CATCH(c, (void)empty.load<4>(0, 0));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
}

CUGUARD_CHECKED_TEST("bounded compares unsigned values as the numbers they are") {
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(std::size_t{0}, SIZE_MAX));
  CHECK_FALSE(c.thrown);
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(std::size_t{1} << 63, SIZE_MAX));
  CHECK_FALSE(c.thrown);
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(SIZE_MAX, std::size_t{10}));
  REQUIRE(c.thrown);
  CHECK(has(c.what, "bounded(18446744073709551615, 10) needs 0 <= value < 10"));
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(-1, SIZE_MAX));
  REQUIRE(c.thrown);
  CHECK(has(c.what, "bounded(-1, 18446744073709551615) needs 0 <= value < 18446744073709551615"));
  CUGUARD_TEST_CATCH(c, (void)cuguard::bounded(3u, 0));
  REQUIRE(c.thrown);
  CHECK(has(c.what, "bounded(3, 0) needs 0 <= value < 0"));
}

CUGUARD_CHECKED_TEST("a view that starts before a tracked allocation and runs into it is reported") {
  auto storage = std::make_unique<float[]>(8);
  cuguard::track(storage.get() + 4, 4 * sizeof(float), "tail");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(storage.get() + 2, {4}, "straddles"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(has(c.what, "out-of-bounds view 'straddles' float[4]: it spans bytes [-8, 8) of allocation 'tail' of 16 bytes"));
  // Ending just before the allocation: not in it.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(storage.get(), {4}, "before"));
  CHECK_FALSE(c.thrown);
  cuguard::release(storage.get() + 4);
}

TEST_CASE("a view of an mdspan with size_t extents (as deduced) is an int64 view") {
  float x[6] = {};
  const cuda::std::mdspan m(x, 2, 3); // dextents<size_t, 2>
  const auto v = cuguard::make_view(m, "m");
  static_assert(std::is_same<decltype(v)::index_type, std::int64_t>::value, "signed twin of size_t");
  CHECK(v.extent(0) == 2);
  CHECK(v.extent(1) == 3);
  CHECK(&v(1, 2) == &x[5]);
}

CUGUARD_CHECKED_TEST("a 32-bit view of a 64-bit mdspan reports what it cannot hold instead of truncating") {
  float x[1] = {};
  using extents = cuda::std::dextents<std::int64_t, 1>;
  const cuda::std::mdspan<float, extents> m(x, (std::int64_t{1} << 32) + 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::checked_view<float, 1, int>(m, "m"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(has(c.what, "dim 0 extent 4294967297 exceeds the index type's maximum 2147483647"));
}
