// SPDX-License-Identifier: Apache-2.0
// Tests of checked_view: shape, access, boundaries, derived views, conversions.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/mdspan.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

using cuguard::violation_kind;

namespace view_tests {
std::vector<float> iota(std::size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}
} // namespace view_tests

TEST_CASE("make_view gives a contiguous row-major view with the given extents") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  static_assert(std::is_same_v<decltype(v), cuguard::checked_view<float, 2>>);
  CHECK(v.rank() == 2);
  CHECK(v.extent(0) == 2);
  CHECK(v.extent(1) == 3);
  CHECK(v.stride(0) == 3);
  CHECK(v.stride(1) == 1);
  CHECK(v.size() == 6);
  CHECK(v.data() == data.data());
  CHECK(v.is_contiguous());
  CHECK(v(1, 2) == 5.0f);
  CHECK(v(0, 1) == 1.0f);
}

TEST_CASE("label returns the label in checked builds and an empty string otherwise") {
  float x = 0;
  auto v = cuguard::make_view(&x, {1}, "weights");
  CHECK(std::string(v.label()) == (cuguard::checks_enabled ? "weights" : ""));
}

TEST_CASE("operator() writes through to the memory") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  v(1, 0) = 42.0f;
  CHECK(data[3] == 42.0f);
}

TEST_CASE("operator[] indexes a rank-1 view") {
  auto data = view_tests::iota(4);
  auto v = cuguard::make_view(data.data(), {4}, "x");
  CHECK(v[3] == 3.0f);
}

TEST_CASE("a strided view reads element i*s0 + j*s1") {
  auto data = view_tests::iota(12);
  auto v = cuguard::make_strided_view(data.data(), {3, 2}, {1, 3}, "xt"); // transpose of [2, 3]
  CHECK(v(2, 1) == 5.0f);
  CHECK(v(1, 0) == 1.0f);
  CHECK_FALSE(v.is_contiguous());
}

TEST_CASE("an index view with 32-bit indices uses 32-bit extents") {
  auto data = view_tests::iota(6);
  cuguard::checked_view<float, 2, int> v(data.data(), {2, 3}, "x");
  static_assert(std::is_same_v<decltype(v.extent(0)), int>);
  CHECK(v(1, 1) == 4.0f);
}

TEST_CASE("views of every rank from 1 to 8 address the last element") {
  std::vector<float> data(256);
  std::iota(data.begin(), data.end(), 0.0f);
  CHECK(cuguard::make_view(data.data(), {256}, "r1")(255) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {16, 16}, "r2")(15, 15) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {4, 8, 8}, "r3")(3, 7, 7) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {4, 4, 4, 4}, "r4")(3, 3, 3, 3) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {2, 2, 4, 4, 4}, "r5")(1, 1, 3, 3, 3) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {2, 2, 2, 2, 4, 4}, "r6")(1, 1, 1, 1, 3, 3) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {2, 2, 2, 2, 2, 2, 4}, "r7")(1, 1, 1, 1, 1, 1, 3) == 255.0f);
  CHECK(cuguard::make_view(data.data(), {2, 2, 2, 2, 2, 2, 2, 2}, "r8")(1, 1, 1, 1, 1, 1, 1, 1) == 255.0f);
}

CUGUARD_CHECKED_TEST("operator() accepts the last valid index of every dimension") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(1, 2));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("operator() rejects an index equal to the extent") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(0, 3)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.dim == 1);
  CHECK(c.report.index[1] == 3);
  CHECK(c.report.extent[1] == 3);
  CHECK(c.what == "cuguard: out-of-bounds access to 'x' float[2, 3] at (0, 3): dim 1 index 3 >= extent 3" + at);
}

CUGUARD_CHECKED_TEST("operator() rejects a negative index") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard_test::caught c;
  const int i = -1;
  CUGUARD_TEST_CATCH(c, (void)v(i, 0)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.dim == 0);
  CHECK(c.report.index[0] == -1);
  CHECK(c.what == "cuguard: out-of-bounds access to 'x' float[2, 3] at (-1, 0): dim 0 index -1 < 0" + at);
}

CUGUARD_CHECKED_TEST("operator() reports the first failing dimension") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(5, 7));
  REQUIRE(c.thrown);
  CHECK(c.report.dim == 0);
  CHECK(c.report.index[0] == 5);
  CHECK(c.report.index[1] == 7);
}

CUGUARD_CHECKED_TEST("operator() rejects an unsigned index that does not fit the index type") {
  auto data = view_tests::iota(6);
  cuguard::checked_view<float, 1, int> v(data.data(), {6}, "x");
  cuguard_test::caught c;
  const std::uint64_t huge = (std::uint64_t{1} << 32) + 1; // would wrap to 1 in 32 bits
  CUGUARD_TEST_CATCH(c, (void)v(huge));
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == static_cast<std::int64_t>(huge));
}

CUGUARD_CHECKED_TEST("operator[] reports the caller's line") {
  auto data = view_tests::iota(4);
  auto v = cuguard::make_view(data.data(), {4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v[4]); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: out-of-bounds access to 'x' float[4] at (4): dim 0 index 4 >= extent 4" + at);
  CHECK(std::string(c.report.file) == __FILE__);
}

CUGUARD_CHECKED_TEST("every access to a zero-size view is rejected") {
  float x = 0;
  auto v = cuguard::make_view(&x, {3, 0}, "empty");
  CHECK(v.size() == 0);
  CHECK(v.empty());
  CHECK(v.is_contiguous());
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(0, 0));
  REQUIRE(c.thrown);
  CHECK(c.report.dim == 1);
  CHECK(c.report.extent[1] == 0);
}

TEST_CASE("a zero-size view over a null pointer is valid") {
  float* none = nullptr;
  auto v = cuguard::make_view(none, {0}, "none");
  CHECK(v.empty());
}

TEST_CASE("a default-constructed view is empty") {
  cuguard::checked_view<float, 2> v;
  CHECK(v.data() == nullptr);
  CHECK(v.size() == 0);
}

// -------------------------------------------------------------------------------------------------
// Derived views
// -------------------------------------------------------------------------------------------------

TEST_CASE("slice narrows one dimension and keeps the strides") {
  auto data = view_tests::iota(12);
  auto v = cuguard::make_view(data.data(), {3, 4}, "x");
  auto s = v.slice(1, 1, 3);
  CHECK(s.extent(0) == 3);
  CHECK(s.extent(1) == 2);
  CHECK(s.stride(0) == 4);
  CHECK(s(2, 1) == 10.0f);
  CHECK_FALSE(s.is_contiguous());
  CHECK(std::string(s.label()) == v.label());
}

TEST_CASE("an empty slice at the end is valid") {
  auto data = view_tests::iota(4);
  auto v = cuguard::make_view(data.data(), {4}, "x");
  CHECK(v.slice(0, 4, 4).empty());
}

CUGUARD_CHECKED_TEST("slice rejects a range past the extent") {
  auto data = view_tests::iota(12);
  auto v = cuguard::make_view(data.data(), {3, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.slice(1, 2, 5)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.op == cuguard::operation::slice);
  CHECK(c.what == "cuguard: out-of-bounds slice of 'x' float[3, 4]: dim 1 range [2, 5) is not within [0, 4)" + at);
}

CUGUARD_CHECKED_TEST("slice rejects a dimension past the rank") {
  auto data = view_tests::iota(12);
  auto v = cuguard::make_view(data.data(), {3, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.slice(2, 0, 1)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::invalid_argument);
  CHECK(c.what == "cuguard: invalid argument to slice of 'x' float[3, 4]: dim 2 is not < rank 2" + at);
}

TEST_CASE("an access through a slice is checked against the slice's extent") {
  auto data = view_tests::iota(12);
  auto s = cuguard::make_view(data.data(), {3, 4}, "x").slice(0, 1, 2);
  if (cuguard::checks_enabled) {
    cuguard_test::caught c;
    CUGUARD_TEST_CATCH(c, (void)s(1, 0));
    REQUIRE(c.thrown);
    CHECK(c.report.extent[0] == 1);
  }
  CHECK(s(0, 3) == 7.0f);
}

TEST_CASE("select drops a dimension") {
  auto data = view_tests::iota(24);
  auto v = cuguard::make_view(data.data(), {2, 3, 4}, "x");
  auto row = v.select(1, 2);
  static_assert(std::is_same_v<decltype(row), cuguard::checked_view<float, 2>>);
  CHECK(row.extent(0) == 2);
  CHECK(row.extent(1) == 4);
  CHECK(row(1, 3) == 23.0f);
}

CUGUARD_CHECKED_TEST("select rejects an index equal to the extent") {
  auto data = view_tests::iota(12);
  auto v = cuguard::make_view(data.data(), {3, 4}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.select(0, 3)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: out-of-bounds select of 'x' float[3, 4]: dim 0 index 3 >= extent 3" + at);
}

TEST_CASE("permute reorders dimensions like PyTorch") {
  auto data = view_tests::iota(24);
  auto v = cuguard::make_view(data.data(), {2, 3, 4}, "x");
  auto p = v.permute({2, 0, 1});
  CHECK(p.extent(0) == 4);
  CHECK(p.extent(1) == 2);
  CHECK(p.extent(2) == 3);
  CHECK(p(3, 1, 2) == v(1, 2, 3));
  CHECK_FALSE(p.is_contiguous());
}

CUGUARD_CHECKED_TEST("permute rejects an order that is not a permutation") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.permute({1, 1})); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::invalid_argument);
  CHECK(c.what == "cuguard: invalid argument to permute of 'x' float[2, 3]: (1, 1) is not a permutation of 0..1" + at);
}

TEST_CASE("transpose swaps two dimensions") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  auto t = v.transpose(0, 1);
  CHECK(t.extent(0) == 3);
  CHECK(t.stride(0) == 1);
  CHECK(t(2, 1) == 5.0f);
}

TEST_CASE("reshape of a contiguous view keeps the elements in order") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  auto r = v.reshape({3, 2});
  static_assert(std::is_same_v<decltype(r), cuguard::checked_view<float, 2>>);
  CHECK(r(2, 1) == 5.0f);
  auto flat = v.reshape({6});
  CHECK(flat(4) == 4.0f);
}

CUGUARD_CHECKED_TEST("reshape of a non-contiguous view is a non_contiguous violation") {
  auto data = view_tests::iota(6);
  auto t = cuguard::make_view(data.data(), {2, 3}, "x").transpose(0, 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)t.reshape({6})); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::non_contiguous);
  CHECK(c.what ==
        "cuguard: non-contiguous reshape of 'x' float[3, 2] strides [1, 3] to [6]: reshape needs contiguous storage" + at);
}

CUGUARD_CHECKED_TEST("reshape to another element count is a shape_mismatch violation") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.reshape({4, 2})); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::shape_mismatch);
  CHECK(c.what == "cuguard: shape mismatch in reshape of 'x' float[2, 3] to [4, 2]: 6 elements != 8 elements" + at);
}

TEST_CASE("a view that only a dimension of extent 1 breaks is still contiguous") {
  auto data = view_tests::iota(3);
  auto v = cuguard::make_strided_view(data.data(), {1, 3}, {99, 1}, "x");
  CHECK(v.is_contiguous());
}

// -------------------------------------------------------------------------------------------------
// Conversions
// -------------------------------------------------------------------------------------------------

TEST_CASE("a view of T converts to a view of const T with the same metadata") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  cuguard::checked_view<const float, 2> c = v;
  CHECK(c(1, 2) == 5.0f);
  CHECK(std::string(c.label()) == v.label());
  static_assert(!std::is_convertible_v<cuguard::checked_view<const float, 2>, cuguard::checked_view<float, 2>>);
}

TEST_CASE("to_mdspan gives an unchecked mdspan over the same elements") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x").transpose(0, 1);
  auto m = v.to_mdspan();
  CHECK(m.extent(0) == 3);
  CHECK(m.stride(0) == 1);
  CHECK(m(2, 1) == 5.0f);
  auto explicit_m = static_cast<cuguard::mdspan_of<float, 2>>(v);
  CHECK(explicit_m.data_handle() == data.data());
  static_assert(!std::is_convertible_v<cuguard::checked_view<float, 2>, cuguard::mdspan_of<float, 2>>);
}

TEST_CASE("a view made from an mdspan has its extents and strides") {
  auto data = view_tests::iota(6);
  cuda::std::mdspan<float, cuda::std::dextents<int, 2>> m(data.data(), 2, 3);
  auto v = cuguard::make_view(m, "from_mdspan");
  static_assert(std::is_same_v<decltype(v), cuguard::checked_view<float, 2, int>>);
  CHECK(v.extent(1) == 3);
  CHECK(v.stride(0) == 3);
  CHECK(v(1, 2) == 5.0f);
  cuda::std::mdspan<float, cuda::std::dextents<long, 2>, cuda::std::layout_left> left(data.data(), 2, 3);
  auto l = cuguard::make_view(left, "left");
  CHECK(l.stride(1) == 2);
  CHECK(l(1, 2) == 5.0f);
}

// -------------------------------------------------------------------------------------------------
// Construction checks
// -------------------------------------------------------------------------------------------------

CUGUARD_CHECKED_TEST("make_view over a null pointer with elements is a null_data violation") {
  float* none = nullptr;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(none, {2, 3}, "x")); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::null_data);
  CHECK(c.what == "cuguard: null data: 'x' float[2, 3] has 6 elements over a null pointer" + at);
}

CUGUARD_CHECKED_TEST("make_view over data misaligned for its element type is a misaligned violation") {
  alignas(8) unsigned char bytes[64] = {};
  int* odd = reinterpret_cast<int*>(bytes + 2);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(odd, {3}, "x")); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::misaligned);
  CHECK(c.report.op == cuguard::operation::make_view);
  char address[32];
  std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(odd)));
  CHECK(c.what == std::string("cuguard: misaligned view: 'x' int32[3] starts at ") + address +
                      ", which is not 4-byte aligned (every element access through it would be misaligned)" + at);
  // Aligned data, and elements of one byte anywhere, are fine.
  CHECK_NOTHROW((void)cuguard::make_view(reinterpret_cast<int*>(bytes + 4), {3}, "y"));
  CHECK_NOTHROW((void)cuguard::make_view(bytes + 3, {3}, "z"));
}

CUGUARD_CHECKED_TEST("make_strided_view rejects a negative extent or stride") {
  auto data = view_tests::iota(6);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view(data.data(), {2, 3}, {3, -1}, "x")); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::invalid_argument);
  CHECK(c.what == "cuguard: invalid argument to make_view of 'x' float[2, 3] strides [3, -1]: dim 1 stride -1 < 0" + at);
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(data.data(), {-2, 3}, "y"));
  REQUIRE(c.thrown);
  CHECK(c.report.dim == 0);
}

CUGUARD_CHECKED_TEST("a view whose offsets overflow a 32-bit index is an index_overflow violation") {
  float x = 0;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (cuguard::checked_view<float, 2, int>(&x, {70000, 70000}, "big"))); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.what == "cuguard: index overflow in make_view of 'big' float[70000, 70000] strides [70000, 1]: largest offset "
                  "4899999999 exceeds the index type's maximum 2147483647" + at);
}

CUGUARD_CHECKED_TEST("a strided view whose largest offset overflows a 32-bit index is rejected") {
  float x = 0;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (cuguard::checked_view<float, 1, int>(&x, {3}, {1 << 30}, "wide")));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.value == 2147483648LL);
}

CUGUARD_CHECKED_TEST("a broadcast view with more elements than a 32-bit index can count is rejected") {
  float x = 0;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (cuguard::checked_view<float, 2, int>(&x, {65536, 65536}, {0, 0}, "broadcast")));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.what.find("element count 4294967296 exceeds the index type's maximum 2147483647") != std::string::npos);
}

CUGUARD_CHECKED_TEST("a 32-bit view whose largest offset is the index maximum is accepted") {
  float x = 0;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (cuguard::checked_view<float, 2, int>(&x, {2, 2}, {2147483646, 1}, "edge")));
  CHECK_FALSE(c.thrown);
}

// -------------------------------------------------------------------------------------------------
// Unchecked build
// -------------------------------------------------------------------------------------------------

CUGUARD_UNCHECKED_TEST("with checks off a view is exactly a pointer, extents and strides") {
  CHECK(sizeof(cuguard::checked_view<float, 1>) == sizeof(float*) + 2 * sizeof(std::int64_t));
  CHECK(sizeof(cuguard::checked_view<float, 3>) == sizeof(float*) + 6 * sizeof(std::int64_t));
  CHECK(sizeof(cuguard::checked_view<double, 8, int>) == sizeof(double*) + 16 * sizeof(int));
  CHECK(sizeof(cuguard::checked_view<float, 3, int>) == sizeof(float*) + 6 * sizeof(int));
}

CUGUARD_CHECKED_TEST("with checks on a view also carries its label and lifetime") {
  CHECK(sizeof(cuguard::checked_view<float, 1>) > sizeof(float*) + 2 * sizeof(std::int64_t));
}

TEST_CASE("views are trivially copyable so that kernels can take them by value") {
  CHECK(std::is_trivially_copyable_v<cuguard::checked_view<float, 2>>);
  CHECK(std::is_trivially_copyable_v<cuguard::checked_view<const int, 1, int>>);
}

TEST_CASE("extents of any integer type are accepted without a narrowing error") {
  auto data = view_tests::iota(6);
  const std::size_t rows = 2;
  const unsigned cols = 3;
  auto v = cuguard::make_view(data.data(), {rows, cols}, "x");
  CHECK(v(1, 2) == 5.0f);
  auto flat = v.reshape({rows * cols});
  CHECK(flat.extent(0) == 6);
  cuguard::checked_view<float, 1, int> small(data.data(), {rows * cols}, "small");
  CHECK(small.extent(0) == 6);
}

CUGUARD_CHECKED_TEST("an extent that does not fit a 32-bit index is an index_overflow violation") {
  float x = 0;
  cuguard_test::caught c;
  const std::int64_t rows = 3000000000LL;
  CUGUARD_TEST_CATCH(c, (cuguard::checked_view<float, 2, int>(&x, {rows, 1}, "tall"))); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.dim == 0);
  CHECK(c.what == "cuguard: index overflow in make_view of 'tall': dim 0 extent 3000000000 exceeds the index type's "
                  "maximum 2147483647" + at);
}

TEST_CASE("at reads the element at an array of coordinates") {
  auto data = view_tests::iota(24);
  auto v = cuguard::make_view(data.data(), {2, 3, 4}, "x");
  const std::int64_t idx[3] = {1, 2, 3};
  CHECK(v.at(idx) == 23.0f);
  const int small[3] = {0, 1, 2};
  CHECK(v.at(small) == 6.0f);
}

CUGUARD_CHECKED_TEST("at reports the caller's line and the failing dimension") {
  auto data = view_tests::iota(6);
  auto v = cuguard::make_view(data.data(), {2, 3}, "x");
  const std::int64_t idx[2] = {1, 3};
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v.at(idx)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: out-of-bounds access to 'x' float[2, 3] at (1, 3): dim 1 index 3 >= extent 3" + at);
}

CUGUARD_CHECKED_TEST("int64 views whose element count or largest offset passes 2^63 are index_overflow, not wrapped") {
  float x[64] = {};
  cuguard_test::caught c;
  // 2^32 x 2^32 elements: the count is 2^64 (it wrapped to 0 before).
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(x, {std::int64_t{1} << 32, std::int64_t{1} << 32}, "square"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.figure == cuguard::shape_figure::largest_offset);
  CHECK(c.what.find("largest offset 9223372036854775808 or more exceeds the index type's maximum "
                    "9223372036854775807") != std::string::npos);
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(x, {std::int64_t{1} << 33, std::int64_t{1} << 33, std::int64_t{1} << 33}, "cube"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  // A stride of 2^62 over 4 elements: largest offset 3 * 2^62.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view(x, {4}, {std::int64_t{1} << 62}, "far"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  // A broadcast (stride 0) view of 2^63 - 1 elements is fine: its largest offset is 0.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view(x, {INT64_MAX}, {0}, "broadcast"));
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("a reshape whose element count wraps is a shape_mismatch, not a view past the buffer") {
  float buf[6] = {};
  const auto f = cuguard::make_view(buf, {6}, "f");
  cuguard_test::caught c;
  // 9 * 6148914691236517206 wraps to 6 in 64 bits.
  CUGUARD_TEST_CATCH(c, (void)f.reshape({9, 6148914691236517206}));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::shape_mismatch);
  CHECK(c.what.find(": 6 elements != more than 9223372036854775807 elements") != std::string::npos);
  CUGUARD_TEST_CATCH(c, (void)f.reshape({2, 3}));
  CHECK_FALSE(c.thrown);
}

TEST_CASE("size() of an empty view whose other extents multiply past the index type is 0") {
  float x = 0;
  const cuguard::checked_view<float, 3, int> v(&x, {1 << 20, 1 << 20, 0}, "empty");
  CHECK(v.size() == 0);
  CHECK(v.empty());
}
