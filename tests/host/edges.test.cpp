// SPDX-License-Identifier: Apache-2.0
// Arguments at the edges of their types: 32-bit views given 64-bit arguments, indices near the
// int64 maximum, unsigned values above it, views that reach into a tracked allocation from
// before it. Each was let through (or computed with undefined behaviour) once.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/mdspan.hpp>
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
  unsigned char x[1] = {};
  // Largest offset 3 * 2^61 fits int64; 4 * 2^61 does not.
  const auto v = cuguard::make_strided_view(x, {4}, {std::int64_t{1} << 61}, "far");
  const auto s = v.slice(0, 4, 4);
  CHECK(s.empty());
  CHECK(s.data() == v.data());
}

CUGUARD_CHECKED_TEST("offsets that fit the index type but not a pointer are index_overflow") {
  float x[1] = {};
  cuguard_test::caught c;
  // 2^62 floats are 2^64 bytes: the address would wrap to the view's own.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view(x, {2}, {std::int64_t{1} << 62}, "wraps"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.figure == cuguard::shape_figure::pointer_offset);
  CHECK(has(c.what, ": largest offset 4611686018427387904 exceeds 2305843009213693951, the most a pointer to its "
                    "elements can be offset by"));
}

CUGUARD_CHECKED_TEST("a view without elements reaches nothing: its offsets are not checked, its slices move its data as narrow does") {
  float x[1] = {};
  cuguard_test::caught c;
  // No element: a stride of 2^62 reaches nothing. A slice of dim 1 would be 2^62 floats (2^64
  // bytes) away, which no pointer can be offset by: its data stays.
  cuguard::checked_view<float, 2> far;
  CUGUARD_TEST_CATCH(c, far = cuguard::make_strided_view(x, {0, 4}, {1, std::int64_t{1} << 62}, "empty"));
  CHECK_FALSE(c.thrown);
  CHECK(far.slice(1, 1, 4).data() == x);
  CHECK(far.slice(1, 4, 4).data() == x);
  // Where the pointer can be formed, the data moves by begin * stride, as narrow's offset does.
  const auto near = cuguard::make_strided_view(x, {0, 4}, {1, 1 << 20}, "empty");
  const auto moved = [&](const float* p) { return reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(x); };
  CHECK(moved(near.slice(1, 2, 4).data()) == (std::uintptr_t{2} << 20) * sizeof(float));
  CHECK(moved(near.select(1, 3).data()) == (std::uintptr_t{3} << 20) * sizeof(float));
  // An empty slice at the end of a view with elements too (the one past the end narrow gives).
  float row[6] = {};
  CHECK(cuguard::make_view(row, {2, 3}, "row").slice(0, 2, 2).data() == row + 6);
  // Row-major strides follow PyTorch's rule (each at least 1), so that to_mdspan keeps them.
  const auto batch = cuguard::make_view(x, {1, 4, 0, 5}, "batch");
  CHECK(batch.stride(0) == 20);
  CHECK(batch.stride(1) == 5);
  CHECK(batch.stride(2) == 5);
  CHECK(batch.stride(3) == 1);
  CUGUARD_TEST_CATCH(c, (void)batch.to_mdspan());
  CHECK_FALSE(c.thrown);
  // Row-major strides of {0, 2^61, 4} bytes would be 2^63 (negative in int64): held at the
  // maximum, so the view is valid and empty, not "negative stride".
  unsigned char bytes[1] = {};
  cuguard::checked_view<unsigned char, 3> wide;
  CUGUARD_TEST_CATCH(c, wide = cuguard::make_view(bytes, {0, std::int64_t{1} << 61, 4}, "empty"));
  CHECK_FALSE(c.thrown);
  CHECK(wide.stride(0) == INT64_MAX);
  // A given stride an int32 view cannot hold is held at its maximum where there is no element,
  // and reported where there are.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view32(x, {0, 4}, {std::int64_t{1} << 40, 1}, "empty"));
  CHECK_FALSE(c.thrown);
  CHECK(cuguard::make_strided_view32(x, {0, 4}, {std::int64_t{1} << 40, 1}, "empty").stride(0) == INT32_MAX);
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_strided_view32(x, {1, 4}, {std::int64_t{1} << 40, 1}, "one"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.dim == 0);
  // A negative extent of a contiguous view is named at its own dimension.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(x, {2, 3, -1}, "negative"));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::invalid_argument);
  CHECK(c.report.dim == 2);
  // A view of null data (it has no element) gives null data to what is derived from it.
  const auto null = cuguard::make_strided_view(static_cast<float*>(nullptr), {4, 0}, {3, 1}, "null");
  CHECK(null.select(0, 3).data() == nullptr);
  CHECK(null.slice(0, 2, 3).data() == nullptr);
  // The default view has strides 1 too.
  CHECK(cuguard::checked_view<float, 2>().stride(0) == 1);
}

CUGUARD_CHECKED_TEST("reshape of a view without elements checks the new extents, not their offsets") {
  float x[1] = {};
  const auto v = cuguard::make_view32(x, {0}, "empty");
  cuguard_test::caught c;
  // {2^32, 0} has 0 elements, as v, but 2^32 does not fit 32-bit indexing.
  CUGUARD_TEST_CATCH(c, (void)v.reshape({std::int64_t{1} << 32, 0}));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::index_overflow);
  CHECK(c.report.dim == 0);
  CHECK(has(c.what, "index overflow in reshape of 'empty': dim 0 extent 4294967296 exceeds the index type's maximum 2147483647"));
  const auto w = cuguard::make_view(x, {0}, "empty");
  cuguard::checked_view<float, 3> far;
  CUGUARD_TEST_CATCH(c, far = w.reshape({0, std::int64_t{1} << 62, 4}));
  CHECK_FALSE(c.thrown);
  CHECK(far.stride(0) == INT64_MAX);
  CHECK(far.stride(1) == 4);
  CUGUARD_TEST_CATCH(c, (void)w.reshape({3, 0, 5}));
  CHECK_FALSE(c.thrown);
  CHECK(w.reshape({3, 0, 5}).stride(1) == 5);
}

CUGUARD_CHECKED_TEST("to_mdspan reports a view that layout_stride cannot map") {
  float x[6] = {};
  cuguard_test::caught c;
  const auto broadcast = cuguard::make_strided_view(x, {4, 3}, {0, 1}, "broadcast");
  CUGUARD_TEST_CATCH(c, (void)broadcast.to_mdspan());
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::invalid_argument);
  CHECK(c.report.op == cuguard::operation::to_mdspan);
  CHECK(has(c.what, "invalid argument to to_mdspan of 'broadcast' float[4, 3] strides [0, 1]: dim 0 stride 0 is not > 0"));
  const auto overlapping = cuguard::make_strided_view(x, {2, 3}, {1, 1}, "overlapping");
  CUGUARD_TEST_CATCH(c, (void)overlapping.to_mdspan());
  REQUIRE(c.thrown);
  CHECK(c.report.dim == -1);
  CHECK(has(c.what, "no order of its dimensions has each stride at least the one before times its extent"));
  // A transposed view is unique: its dimensions ordered by stride are row-major.
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(x, {2, 3}, "x").transpose(0, 1).to_mdspan());
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("to_mdspan maps views without elements that layout_stride accepts") {
  int x[64] = {};
  cuguard_test::caught c;
  // Ordered by stride (7 then 9) the strides do not grow by the extents, but with the dimension of
  // extent 0 first they do (9, then 7 >= 9 * 0): C++23's condition holds.
  const cuguard::checked_view<int, 2, int> a(x, {0, 4}, {9, 7}, "a");
  decltype(a.to_mdspan()) m2;
  CUGUARD_TEST_CATCH(c, m2 = a.to_mdspan());
  REQUIRE_FALSE(c.thrown);
  CHECK(m2.extent(0) == 0);
  CHECK(m2.extent(1) == 4);
  CHECK(m2.size() == 0);
  // libcu++'s checks (on in this build: CCCL_ENABLE_ASSERTIONS) take only the order by stride:
  // the mdspan maps the same elements, none, with strides they take.
  CHECK(m2.stride(0) == 1);
  CHECK(m2.stride(1) == 1);
  // Strides libcu++ takes are kept.
  const cuguard::checked_view<int, 2, int> kept(x, {0, 4}, {4, 1}, "kept");
  CHECK(kept.to_mdspan().stride(0) == 4);
  // Its required span is 0, though 2 * 6 * 353496174 does not fit an int.
  const auto b = cuguard::checked_view<int, 1, int>{}.reshape({3, 0, 6, 353496174});
  decltype(b.to_mdspan()) m4;
  CUGUARD_TEST_CATCH(c, m4 = b.to_mdspan());
  REQUIRE_FALSE(c.thrown);
  CHECK(m4.extent(0) == 3);
  CHECK(m4.extent(3) == 353496174);
  CHECK(m4.size() == 0);
  CHECK(m4.mapping().required_span_size() == 0);
  CHECK(m4.stride(0) == 1);
  CHECK(m4.stride(1) == 3);
  // A dimension of extent 0 between two that cannot follow each other: {5 x 1, 3 x 2} need 2 >= 5
  // or 1 >= 6; 5 elements apart, then the empty one (stride 100 >= 5), then the other.
  const cuguard::checked_view<int, 3, int> split(x, {5, 3, 0}, {1, 2, 100}, "split");
  CUGUARD_TEST_CATCH(c, (void)split.to_mdspan());
  CHECK_FALSE(c.thrown);
  // No order exists: the empty dimension's stride 3 is below 5 x 1 and 3 x 2, so one of those two
  // must follow the other.
  const cuguard::checked_view<int, 3, int> none(x, {5, 3, 0}, {1, 2, 3}, "none");
  CUGUARD_TEST_CATCH(c, (void)none.to_mdspan());
  REQUIRE(c.thrown);
  CHECK(has(c.what, "no order of its dimensions has each stride at least the one before times its extent"));
  // A view with elements whose strides only an empty view could order stays refused.
  const cuguard::checked_view<int, 2, int> full(x, {1, 4}, {9, 7}, "full");
  CUGUARD_TEST_CATCH(c, (void)full.to_mdspan());
  CHECK(c.thrown);
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
