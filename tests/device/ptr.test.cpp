// SPDX-License-Identifier: Apache-2.0
// cuguard::ptr in kernels: raw-pointer kernels with T* renamed compute what they computed, and
// their bad accesses are reported with the line, the offset, the extent and the allocation.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

using cuguard::violation_kind;
using device_test_support::checked;

namespace ptr_tests {

/// Row-wise scaling as extensions write it: a pointer moved to each row, then indexed.
__global__ void scale_rows(cuguard::ptr<const float> in, cuguard::ptr<float> out, int rows, int cols, float by) {
  const int r = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (r >= rows) return;
  cuguard::ptr<const float> src = in + r * cols;
  cuguard::ptr<float> dst = out + static_cast<std::int64_t>(r) * cols;
  for (int c = 0; c < cols; ++c) dst[c] = src[c] * by;
}

/// The pointer operations a kernel does with a T*, each leaving its mark in `out` (16 elements).
__global__ void operations(cuguard::ptr<float> out, cuguard::ptr<const float> in) {
  if (threadIdx.x != 0) return;
  cuguard::ptr<float> p = out;
  *p = 1.0f;                         // out[0]
  ++p;
  *p++ = 2.0f;                       // out[1]
  p += 2;                            // out + 4
  p[-1] = 3.0f;                      // out[3]
  p -= 1;
  --p;                               // out + 2
  p[0] = static_cast<float>(p - out); // out[2] = 2
  cuguard::ptr<float> end = 16 + out;
  out[4] = static_cast<float>(end - out);                        // 16
  out[5] = (end - 1 == out + 15 && p != out && out < end && end >= p && !(end <= p)) ? 1.0f : 0.0f;
  cuguard::ptr<float> none = nullptr;
  cuguard::ptr<float> zero = 0;
  out[6] = (!none && none == nullptr && out != nullptr && (out ? true : false) && zero == 0 && out != NULL &&
            nullptr == zero)
               ? 1.0f
               : 0.0f;
  cuguard::ptr<const float> read_only = out;
  out[7] = read_only[4] + in[1];                                 // 16 + in[1]
  atomicAdd(out + 8, 5.0f);
  out[9] = __ldg(in + 2);
}

/// Writes `value` at out[i].
__global__ void write_at(cuguard::ptr<float> out, std::int64_t i, float value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) out[i] = value;
}
constexpr unsigned write_at_line = __LINE__ - 2;

/// An unguarded elementwise kernel: the threads past n write past the end.
template <unsigned BlockSize, long Shift>
__global__ void write_at_shifted(cuguard::ptr<float> out, std::int64_t i) {
  out[i + Shift] = static_cast<float>(BlockSize);
}

__global__ void add_one(cuguard::ptr<const float> in, cuguard::ptr<float> out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out[i] = in[i] + 1.0f;
}

__global__ void deref_at(cuguard::ptr<float> out, int i) {
  if (threadIdx.x == 0) *(out + i) = 1.0f;
}

__global__ void add_atomic(cuguard::ptr<float> out, int i) {
  if (threadIdx.x == 0) atomicAdd(out + i, 1.0f);
}
constexpr unsigned add_atomic_line = __LINE__ - 2;

/// float4 loads through ptr_cast, as vectorized kernels reinterpret_cast their float pointers.
__global__ void copy4(cuguard::ptr<const float> in, cuguard::ptr<float> out, int quads, int shift) {
  const int i = static_cast<int>(threadIdx.x);
  if (i >= quads) return;
  const cuguard::ptr<const float4> in4 = cuguard::ptr_cast<const float4>(in + shift);
  cuguard::ptr_cast<float4>(out)[i] = in4[i];
}
constexpr unsigned copy4_access_line = __LINE__ - 2;

/// A struct of pointers passed by value, as many extensions pass their parameters.
struct gather_params {
  cuguard::ptr<const float> table;
  cuguard::ptr<const int> rows;
  cuguard::ptr<float> out;
  int cols;
};
__global__ void gather(gather_params p) {
  const int r = static_cast<int>(blockIdx.x);
  for (int c = static_cast<int>(threadIdx.x); c < p.cols; c += static_cast<int>(blockDim.x))
    p.out[r * p.cols + c] = p.table[p.rows[r] * p.cols + c];
}
constexpr unsigned gather_line = __LINE__ - 2;

/// A table of addresses as fused optimizers pass their tensor lists: void* members, each cast to
/// the element type where it is used.
struct tensor_table {
  cuguard::ptr<void> addresses[3];
  int sizes[3];
};
struct scale_functor {
  __device__ void operator()(const tensor_table& t, int which, float by) const {
    cuguard::ptr<float> x = cuguard::ptr_cast<float>(t.addresses[which]);
    for (int i = static_cast<int>(threadIdx.x); i < t.sizes[which]; i += static_cast<int>(blockDim.x)) x[i] *= by;
  }
};
constexpr unsigned scale_line = __LINE__ - 3;
__global__ void scale_table(tensor_table t, float by) { scale_functor{}(t, static_cast<int>(blockIdx.x), by); }

/// ptr<const void> from ptr<const float>, and back: the same bytes.
__global__ void copy_through_void(cuguard::ptr<const float> in, cuguard::ptr<float> out, int n) {
  const cuguard::ptr<const void> bytes = in;
  const cuguard::ptr<const float> back = cuguard::ptr_cast<const float>(bytes);
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) out[i] = back[i];
}

/// `(I)p`, as a C-style cast of a pointer gives it: a checked pointer's explicit conversion.
template <class I, class P>
I as_integer(P p) {
  if constexpr (std::is_pointer<P>::value) return reinterpret_cast<I>(p);
  else return static_cast<I>(p);
}

/// A flag set through a volatile pointer (apex's noop_flag), given a ptr<int>.
__global__ void set_flag(cuguard::ptr<volatile int> flag, int at) { flag[at] = 1; }

/// out[rows[i]] = 1: an index read from a view, through a pointer.
__global__ void write_rows(cuguard::ptr<float> out, cuguard::checked_view<const int, 1> rows) {
  const auto i = static_cast<int>(threadIdx.x);
  if (i < rows.extent(0)) out[cuguard::index_from(rows, i)] = 1.0f;
}

} // namespace ptr_tests

TEST_CASE("a kernel whose T* parameters are cuguard::ptr computes what it computed") {
  constexpr int rows = 5, cols = 7;
  std::vector<float> host(rows * cols);
  for (int i = 0; i < rows * cols; ++i) host[static_cast<std::size_t>(i)] = static_cast<float>(i);
  cuguard::device_buffer<float> in(host.size(), "in"), out(host.size(), "out");
  in.copy_from_host(host);
  cuguard::launch(ptr_tests::scale_rows, 1, 32, in.data(), out.data(), rows, cols, 2.0f);
  const std::vector<float> got = out.to_host();
  for (int i = 0; i < rows * cols; ++i) CHECK(got[static_cast<std::size_t>(i)] == 2.0f * static_cast<float>(i));
}

TEST_CASE("cuguard::ptr does what a kernel does with a T*") {
  cuguard::device_buffer<float> out(16, "out"), in(4, "in");
  in.copy_from_host(std::vector<float>{10.0f, 20.0f, 30.0f, 40.0f});
  out.copy_from_host(std::vector<float>(16, 0.0f));
  cuguard::launch(ptr_tests::operations, 1, 1, out.data(), in.data());
  cuguard::check();
  const std::vector<float> got = out.to_host();
  CHECK(got[0] == 1.0f);
  CHECK(got[1] == 2.0f);
  CHECK(got[2] == 2.0f);
  CHECK(got[3] == 3.0f);
  CHECK(got[4] == 16.0f);
  CHECK(got[5] == 1.0f);
  CHECK(got[6] == 1.0f);
  CHECK(got[7] == 36.0f);
  CHECK(got[8] == 5.0f);
  CHECK(got[9] == 30.0f);
}

CUGUARD_CHECKED_TEST("a write one past a pointer's allocation is reported with the line, the offset and the extent") {
  cuguard::device_buffer<float> out(10, "scores");
  cuguard::launch(ptr_tests::write_at, 1, 1, out.data(), std::int64_t{10}, 1.0f);
  const auto c = checked();
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.kind == violation_kind::out_of_bounds);
  CHECK(v.op == cuguard::operation::pointer_access);
  CHECK(v.line == ptr_tests::write_at_line);
  CHECK(v.index[0] == 10);
  CHECK(v.extent[0] == 10);
  CHECK(std::string(v.label) == "argument 1 of write_at");
  CHECK(std::string(v.alloc_label) == "scores");
  CHECK(c.what.rfind("cuguard: out-of-bounds access through pointer 'argument 1 of write_at' float[10]: offset 10 >= "
                     "extent 10\n  the pointer is into allocation 'scores' (40 bytes) allocated at ",
                     0) == 0);
}

CUGUARD_CHECKED_TEST("a report nothing read is raised by the next conversion of a pointer, as a <<<>>> launch makes it") {
  cuguard::device_buffer<float> out(10, "scores");
  cuguard::launch(ptr_tests::write_at, 1, 1, out.data(), std::int64_t{12}, 1.0f);
  float* raw = out.data();
  bool raised = false;
  try {
    const cuguard::ptr<float> next = raw; // what `kernel<<<1, 1>>>(raw)` does with a ptr parameter
    (void)next;
  } catch (const cuguard::violation_error& e) {
    raised = true;
    CHECK(e.report().kind == violation_kind::out_of_bounds);
    CHECK(e.report().line == ptr_tests::write_at_line);
    CHECK(e.report().index[0] == 12);
  }
  CHECK(raised);
  const cuguard::ptr<float> again = raw; // read once: the channel is clear
  cuguard::launch(ptr_tests::write_at, 1, 1, again, std::int64_t{9}, 2.0f);
  CHECK_FALSE(checked().thrown);
}

CUGUARD_CHECKED_TEST("a kernel template's arguments read as written, in the label and the launch") {
  cuguard::device_buffer<float> out(10, "scores");
  cuguard::launch(ptr_tests::write_at_shifted<64, -2>, 1, 1, out.data(), std::int64_t{12});
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == 10);
  // The demangler writes unsigned and long arguments with suffixes (64u, -2l): dropped.
  CHECK(std::string(c.report.label) == "argument 1 of write_at_shifted<64, -2>");
  CHECK(std::string(c.report.launch.kernel) == "ptr_tests::write_at_shifted<64, -2>");
  CHECK(c.what.find("write_at_shifted<64, -2><<<") != std::string::npos);
  CHECK(c.what.find("64u") == std::string::npos);
}

CUGUARD_CHECKED_TEST("a negative offset and one 2^32 past are reported, the second as a 32-bit overflow") {
  cuguard::device_buffer<float> out(10, "out");
  cuguard::launch(ptr_tests::write_at, 1, 1, out.data(), std::int64_t{-1}, 1.0f);
  auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == -1);
  CHECK(c.what.find("offset -1 < 0") != std::string::npos);
  CHECK(c.what.find("2^32") == std::string::npos);
  cuguard::launch(ptr_tests::write_at, 1, 1, out.data(), (std::int64_t{1} << 32) + 3, 1.0f);
  c = checked();
  REQUIRE(c.thrown);
  CHECK(c.what.find("offset 4294967299 >= extent 10") != std::string::npos);
  CHECK(c.what.find("\n  offset 4294967299 is 3 + 2^32: a 32-bit index computation may have overflowed") !=
        std::string::npos);
}

CUGUARD_CHECKED_TEST("an unguarded elementwise kernel's threads past the end are stopped, and the rest computed") {
  cuguard::device_buffer<float> in(40, "in"), out(40, "out");
  in.copy_from_host(std::vector<float>(40, 1.0f));
  cuguard::launch(ptr_tests::add_one, 2, 32, in.data(), out.data());
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] >= 40);
  CHECK(c.report.extent[0] == 40);
  const std::vector<float> got = out.to_host();
  CHECK(got[0] == 2.0f);
  CHECK(got[39] == 2.0f);
}

CUGUARD_CHECKED_TEST("an access through *p is reported, saying the language gives it no line") {
  cuguard::device_buffer<float> out(4, "out");
  cuguard::launch(ptr_tests::deref_at, 1, 1, out.data(), 4);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == 4);
  CHECK(c.what.find("\n  at a line the language does not give (*p, p->m): write p[0] to have it\n") != std::string::npos);
}

CUGUARD_CHECKED_TEST("atomicAdd(p + i, v) checks the element and reports the line of the call") {
  cuguard::device_buffer<float> out(4, "out");
  cuguard::launch(ptr_tests::add_atomic, 1, 1, out.data(), 7);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == 7);
  CHECK(c.report.line == ptr_tests::add_atomic_line);
}

TEST_CASE("ptr_cast<float4> loads and stores four floats at a time") {
  cuguard::device_buffer<float> in(8, "in"), out(8, "out");
  std::vector<float> host(8);
  for (int i = 0; i < 8; ++i) host[static_cast<std::size_t>(i)] = static_cast<float>(i);
  in.copy_from_host(host);
  cuguard::launch(ptr_tests::copy4, 1, 32, in.data(), out.data(), 2, 0);
  CHECK(out.to_host() == host);
}

CUGUARD_CHECKED_TEST("ptr_cast<float4> past the last whole float4 is out of bounds, and one of a misaligned address misaligned") {
  cuguard::device_buffer<float> in(10, "in"), out(16, "out");
  cuguard::launch(ptr_tests::copy4, 1, 32, in.data(), out.data(), 3, 0); // 10 floats hold 2 float4
  auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.index[0] == 2);
  CHECK(c.report.extent[0] == 2);
  CHECK(std::string(c.report.type) == "const float4");
  cuguard::launch(ptr_tests::copy4, 1, 32, in.data(), out.data(), 1, 1);
  c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::misaligned);
  CHECK(c.report.line == ptr_tests::copy4_access_line);
  CHECK(c.report.index[0] == 0);
  CHECK(c.what.find("misaligned access through pointer 'argument 1 of copy4' const float4 at offset 0: address 0x") !=
        std::string::npos);
  CHECK(c.what.find("is not 16-byte aligned, as its element type needs") != std::string::npos);
}

CUGUARD_CHECKED_TEST("a struct of pointers converted on the host is checked against each allocation") {
  cuguard::device_buffer<float> table(12, "table"), out(6, "out");
  cuguard::device_buffer<int> rows(2, "rows");
  rows.copy_from_host(std::vector<int>{1, 4}); // table has 4 rows of 3: row 4 is past its end
  const ptr_tests::gather_params p{table.data(), rows.data(), out.data(), 3};
  cuguard::launch(ptr_tests::gather, 2, 4, p);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.line == ptr_tests::gather_line);
  CHECK(c.report.index[0] >= 12);
  CHECK(c.report.extent[0] == 12);
  CHECK(std::string(c.report.alloc_label) == "table");
}

TEST_CASE("a table of ptr<void> cast to float in a functor computes what void* did") {
  cuguard::device_buffer<float> a(5, "a"), b(7, "b"), c(3, "c");
  a.copy_from_host(std::vector<float>(5, 1.0f));
  b.copy_from_host(std::vector<float>(7, 2.0f));
  c.copy_from_host(std::vector<float>(3, 3.0f));
  const ptr_tests::tensor_table t{{a.data(), b.data(), c.data()}, {5, 7, 3}};
  cuguard::launch(ptr_tests::scale_table, 3, 4, t, 2.0f);
  CHECK(a.to_host() == std::vector<float>(5, 2.0f));
  CHECK(b.to_host() == std::vector<float>(7, 4.0f));
  CHECK(c.to_host() == std::vector<float>(3, 6.0f));
  cuguard::launch(ptr_tests::copy_through_void, 1, 4, b.data(), a.data(), 5);
  CHECK(a.to_host() == std::vector<float>(5, 4.0f));
}

CUGUARD_CHECKED_TEST("a ptr<volatile int> from a ptr<int> sets its element, and one past it is reported") {
  cuguard::device_buffer<int> flag(2, "flag");
  flag.copy_from_host(std::vector<int>{0, 0});
  const cuguard::ptr<int> plain = flag.data();
  cuguard::launch(ptr_tests::set_flag, 1, 1, cuguard::ptr<volatile int>(plain), 1);
  CHECK(flag.to_host() == std::vector<int>{0, 1});
  // The address as an integer, as a cast of a T* gives it (alignment arithmetic).
  CHECK(ptr_tests::as_integer<std::uintptr_t>(plain + 1) == reinterpret_cast<std::uintptr_t>(flag.data() + 1));
  CHECK(ptr_tests::as_integer<std::int64_t>(cuguard::ptr<void>(flag.data())) == reinterpret_cast<std::int64_t>(flag.data()));
  static_assert(!std::is_constructible<int, cuguard::ptr<int>>::value, "no narrower integer");
  cuguard::launch(ptr_tests::set_flag, 1, 1, cuguard::ptr<volatile int>(plain), 2);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == 2);
  CHECK(c.report.extent[0] == 2);
}

CUGUARD_CHECKED_TEST("a ptr<void> is bounded by its allocation's bytes: an overrun through its cast is reported") {
  cuguard::device_buffer<float> a(5, "a"), b(7, "b");
  const ptr_tests::tensor_table t{{a.data(), b.data(), a.data()}, {5, 8, 5}}; // b holds 7 floats, not 8
  cuguard::launch(ptr_tests::scale_table, 2, 4, t, 2.0f);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.line == ptr_tests::scale_line);
  CHECK(c.report.index[0] == 7);
  CHECK(c.report.extent[0] == 7);
  CHECK(std::string(c.report.type) == "float");
  CHECK(std::string(c.report.alloc_label) == "b");
  static_assert(std::is_convertible<cuguard::ptr<float>, cuguard::ptr<void>>::value, "as float* to void*");
  static_assert(std::is_convertible<cuguard::ptr<int>, cuguard::ptr<volatile int>>::value, "as int* to volatile int*");
  static_assert(!std::is_convertible<cuguard::ptr<volatile int>, cuguard::ptr<int>>::value, "volatile stays");
  static_assert(std::is_convertible<cuguard::ptr<void>, cuguard::ptr<const void>>::value, "as void* to const void*");
  static_assert(!std::is_convertible<cuguard::ptr<const float>, cuguard::ptr<void>>::value, "const stays");
  static_assert(!std::is_convertible<cuguard::ptr<const void>, cuguard::ptr<void>>::value, "const stays");
  const cuguard::ptr<void> none = nullptr;
  CHECK(!none);
  CHECK(cuguard::unchecked(cuguard::ptr<void>(a.data())) == static_cast<void*>(a.data()));
}

CUGUARD_CHECKED_TEST("a pointer made from a view is bounded by the view and named by its label") {
  cuguard::device_buffer<float> buf(12, "buf");
  const auto rows = buf.view({3, 4}).slice(0, 0, 2); // the first 8 elements
  cuguard::launch(ptr_tests::write_at, 1, 1, cuguard::make_ptr(rows), std::int64_t{8}, 1.0f);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.extent[0] == 8);
  CHECK(std::string(c.report.label) == "buf");
}

CUGUARD_CHECKED_TEST("a pointer whose allocation was released is reported at the launch") {
  cuguard::device_buffer<float> buf(4, "released");
  float* raw = buf.data();
  cuguard::ptr<float> p = raw;
  buf.release();
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::launch(ptr_tests::write_at, 1, 1, p, std::int64_t{0}, 1.0f));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
}

#if CUGUARD_IMPL_EMULATION
CUGUARD_CHECKED_TEST("a pointer into memory cuguard does not know is unchecked, and said once per place") {
  std::vector<float> untracked(4, 0.0f);
  for (int round = 0; round < 2; ++round) {
    const std::string said = device_test_support::stderr_of([&] {
      cuguard::ptr<float> p = untracked.data();
      p[2] = 5.0f;
      p[-1 + 1] = 1.0f;
    });
    if (round == 0) {
      CHECK(said.find("cuguard: warning: a cuguard::ptr<float> made at ") != std::string::npos);
      CHECK(said.find("ptr.test.cpp") != std::string::npos);
      CHECK(said.find("its accesses are not checked") != std::string::npos);
    } else {
      CHECK(said.empty());
    }
  }
  CHECK(untracked[0] == 1.0f);
  CHECK(untracked[2] == 5.0f);
}
#endif

CUGUARD_CHECKED_TEST("a checked_index through a pointer says where the index came from") {
  cuguard::device_buffer<float> out(8, "out");
  cuguard::device_buffer<int> rows(3, "rows");
  rows.copy_from_host(std::vector<int>{2, 9, 4});
  cuguard::launch(ptr_tests::write_rows, 1, 4, out.data(), rows.view());
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.index[0] == 9);
  CHECK(c.report.extent[0] == 8);
  CHECK(c.what.find("\n  index 9 came from 'rows'[1]") != std::string::npos);
}
