// SPDX-License-Identifier: Apache-2.0
// Tests of the report format for records filled by device code, and of violation_error.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace report_tests {
// The record device code fills for DESIGN.md's example.
cuguard::violation device_record() {
  cuguard::violation v{};
  v.kind = cuguard::violation_kind::out_of_bounds;
  v.op = cuguard::operation::access;
  std::strcpy(v.label, "embeddings");
  std::strcpy(v.type, "float");
  std::strcpy(v.file, "examples/lstm_gather_bug.cu");
  v.line = 41;
  std::strcpy(v.function, "gather_rows");
  v.rank = 2;
  v.dim = 0;
  v.index[0] = 1030, v.index[1] = 17;
  v.extent[0] = 1024, v.extent[1] = 256;
  v.stride[0] = 256, v.stride[1] = 1;
  v.origin = cuguard::index_origin::index_view;
  std::strcpy(v.origin_label, "mask_idx");
  v.origin_rank = 1;
  v.origin_index[0] = 5;
  v.on_device = true;
  v.block[0] = 5;
  v.thread[0] = 17;
  v.launch.id = 3;
  std::strcpy(v.launch.kernel, "gather_rows");
  std::strcpy(v.launch.site.file, "examples/lstm_gather_bug.cu");
  v.launch.site.line = 88;
  v.launch.grid[0] = 32, v.launch.grid[1] = 1, v.launch.grid[2] = 1;
  v.launch.block[0] = 256, v.launch.block[1] = 1, v.launch.block[2] = 1;
  v.count = 4096;
  return v;
}
} // namespace report_tests

TEST_CASE("a device record is formatted with thread, launch and the count of later violations") {
  CHECK(cuguard::format(report_tests::device_record()) ==
        "cuguard: out-of-bounds access to 'embeddings' float[1024, 256] at (1030, 17): dim 0 index 1030 >= extent 1024\n"
        "  index 1030 came from 'mask_idx'[5]\n"
        "  at examples/lstm_gather_bug.cu:41 in gather_rows\n"
        "  block (5,0,0) thread (17,0,0) of launch #3 gather_rows<<<(32,1,1),(256,1,1)>>> at examples/lstm_gather_bug.cu:88\n"
        "  (4095 more violations in this launch)");
}

namespace report_tests {
// A raw access of a sanitized extension's kernel (detail/runtime/live_memory.hpp): `offset` bytes
// from the start of a 40-byte float storage, `bytes` wide.
cuguard::violation raw_access(std::int64_t offset, std::int64_t bytes, bool freed = false) {
  auto v = device_record();
  v.kind = freed ? cuguard::violation_kind::use_after_free : cuguard::violation_kind::out_of_bounds;
  v.op = cuguard::operation::raw_access;
  v.origin = cuguard::index_origin::none;
  std::strcpy(v.label, "argument 1 of twice_kernel");
  v.rank = 1;
  v.dim = 0;
  v.index[0] = offset >= 0 ? offset / 4 : -((-offset + 3) / 4);
  v.extent[0] = 10;
  v.stride[0] = 1;
  v.address = 0x1000 + offset;
  v.bytes = bytes;
  v.value = 0;
  v.value_end = offset;
  v.alloc_bytes = 40;
  std::strcpy(v.alloc_label, "a tensor's storage");
  v.count = 1;
  return v;
}
std::string headline(const cuguard::violation& v) {
  const std::string text = cuguard::format(v);
  return text.substr(0, text.find("\n  at "));
}
} // namespace report_tests

TEST_CASE("a raw access past the end, before the start, across the end or into a freed storage says which") {
  using report_tests::headline;
  using report_tests::raw_access;
  CHECK(headline(raw_access(40, 4)) ==
        "cuguard: out-of-bounds read of 4 bytes through a raw pointer at (10) of 'argument 1 of twice_kernel' "
        "float[10]: element 10 >= extent 10\n  address 0x1028, 0 bytes past the end of the 40 bytes of a tensor's storage");
  CHECK(headline(raw_access(-8, 4)) ==
        "cuguard: out-of-bounds read of 4 bytes through a raw pointer at (-2) of 'argument 1 of twice_kernel' "
        "float[10]: element -2 < 0\n  address 0xff8, 8 bytes before the start of the 40 bytes of a tensor's storage");
  CHECK(headline(raw_access(32, 16)) ==
        "cuguard: out-of-bounds read of 16 bytes through a raw pointer at (8) of 'argument 1 of twice_kernel' "
        "float[10]: bytes [32, 48) run past its 40 bytes\n  address 0x1020, 32 bytes into the 40 bytes of a tensor's "
        "storage");
  CHECK(headline(raw_access(4, 4, true)) ==
        "cuguard: use after free: read of 4 bytes through a raw pointer at (1) of 'argument 1 of twice_kernel' "
        "float[10], which was freed\n  address 0x1004, 4 bytes into the 40 bytes of a tensor's storage");
}

TEST_CASE("an implicit conversion out of range gives the GPU's value; a division by zero says it trapped; a shift its count") {
  using report_tests::headline;
  auto v = report_tests::device_record();
  v.kind = cuguard::violation_kind::conversion_overflow;
  v.op = cuguard::operation::access;
  const double nan = std::numeric_limits<double>::quiet_NaN(), big = 3e9;
  std::memcpy(&v.value, &nan, sizeof nan);
  v.bytes = 4;
  v.dim = 1;
  v.value_end = 0;
  std::strcpy(v.type, "'float'");
  std::strcpy(v.label, "'int'");
  CHECK(headline(v).rfind("cuguard: float-to-integer conversion out of range: thread (17,0,0) converts nan ('float') to 'int' "
                          "implicitly: a GPU gives 0 (saturated), this processor its own value", 0) == 0);
  std::memcpy(&v.value, &big, sizeof big);
  v.dim = 0;
  v.value_end = 3000000000;
  std::strcpy(v.label, "'unsigned int'");
  CHECK(headline(v).find("converts 3e+09 ('float') to 'unsigned int' implicitly: a GPU gives 3000000000") != std::string::npos);
  v.kind = cuguard::violation_kind::illegal_address;
  v.value = 2;
  CHECK(headline(v).rfind("cuguard: integer division by zero: thread (17,0,0) trapped (SIGFPE)", 0) == 0);
  v.kind = cuguard::violation_kind::shift_overflow;
  v.value = -5;
  v.value_end = 40;
  v.bytes = 8;
  std::strcpy(v.type, "'long int'");
  CHECK(headline(v).rfind("cuguard: shift out of range: thread (17,0,0) shifts -5 ('long int', 64 bits) by 40: a GPU clamps the "
                          "count to 64", 0) == 0);
}

TEST_CASE("a raw read of a fresh storage's bytes nothing wrote says how many of its bytes") {
  using report_tests::headline;
  auto v = report_tests::raw_access(8, 4);
  v.kind = cuguard::violation_kind::uninitialized_read;
  v.limit = 4;
  CHECK(headline(v) ==
        "cuguard: uninitialized read of 4 bytes through a raw pointer at (2) of 'argument 1 of twice_kernel' float[10], "
        "which nothing wrote since its storage was allocated (no kernel, Torch op or host code wrote them before the "
        "read: on a GPU the value is whatever the memory held)\n  address 0x1008, 8 bytes into the 40 bytes of a "
        "tensor's storage");
  v = report_tests::raw_access(32, 16);
  v.kind = cuguard::violation_kind::uninitialized_read;
  v.limit = 8;
  CHECK(headline(v).find("at (8) of 'argument 1 of twice_kernel' float[10], 8 bytes of which nothing wrote since") !=
        std::string::npos);
}

namespace report_tests {
// A cuguard::ptr's access (ptr.hpp) at `offset` elements of a 10-element float allocation.
cuguard::violation pointer_access(std::int64_t offset) {
  auto v = raw_access(offset * 4, 4);
  v.op = cuguard::operation::pointer_access;
  v.alloc_label[0] = '\0';
  v.index[0] = offset;
  return v;
}
} // namespace report_tests

TEST_CASE("a pointer's access says its offset and extent, and an offset out by a multiple of 2^32 an overflow") {
  using report_tests::headline;
  using report_tests::pointer_access;
  CHECK(headline(pointer_access(10)) ==
        "cuguard: out-of-bounds access through pointer 'argument 1 of twice_kernel' float[10]: offset 10 >= extent 10");
  CHECK(headline(pointer_access(-1)) ==
        "cuguard: out-of-bounds access through pointer 'argument 1 of twice_kernel' float[10]: offset -1 < 0");
  CHECK(headline(pointer_access((std::int64_t{1} << 32) + 3)) ==
        "cuguard: out-of-bounds access through pointer 'argument 1 of twice_kernel' float[10]: offset 4294967299 >= "
        "extent 10\n  offset 4294967299 is 3 + 2^32: a 32-bit index computation may have overflowed");
  CHECK(headline(pointer_access(5 - (std::int64_t{3} << 32))) ==
        "cuguard: out-of-bounds access through pointer 'argument 1 of twice_kernel' float[10]: offset -12884901883 < 0"
        "\n  offset -12884901883 is 5 - 3 * 2^32: a 32-bit index computation may have overflowed");
  auto view = report_tests::device_record();
  view.origin = cuguard::index_origin::none;
  view.index[0] = (std::int64_t{1} << 32) + 1000;
  CHECK(headline(view).find("\n  index 4294968296 is 1000 + 2^32: a 32-bit index computation may have overflowed") !=
        std::string::npos);
  auto line_unknown = pointer_access(10);
  line_unknown.file[0] = '\0';
  CHECK(cuguard::format(line_unknown).find("\n  at a line the language does not give (*p, p->m): write p[0] to have it\n") !=
        std::string::npos);
}

TEST_CASE("a count that is a lower bound (each thread stopped at its first violation) is worded as threads") {
  auto v = report_tests::device_record();
  v.count_is_lower_bound = true;
  const std::string text = cuguard::format(v);
  CHECK(text.substr(text.rfind('\n') + 1) == "  (4095 more threads stopped at a violation in this launch)");
  v.count = 1;
  CHECK(cuguard::format(v).find("more threads") == std::string::npos);
}

TEST_CASE("a device record of a single violation has no count line") {
  auto v = report_tests::device_record();
  v.count = 1;
  CHECK(cuguard::format(v).find("more violations") == std::string::npos);
}

TEST_CASE("a device record without a recorded launch names only block and thread") {
  auto v = report_tests::device_record();
  v.launch = {};
  v.count = 1;
  const std::string text = cuguard::format(v);
  CHECK(text.substr(text.rfind('\n') + 1) == "  block (5,0,0) thread (17,0,0)");
}

TEST_CASE("a wrong_memory_space record says the view points to host memory") {
  auto v = report_tests::device_record();
  v.kind = cuguard::violation_kind::wrong_memory_space;
  v.origin = cuguard::index_origin::none;
  v.count = 1;
  CHECK(cuguard::format(v).rfind("cuguard: wrong memory space: access to 'embeddings' float[1024, 256] at (1030, 17): "
                                 "the view points to host memory, which device code cannot access\n"
                                 "  at examples/lstm_gather_bug.cu:41 in gather_rows",
                                 0) == 0);
}

TEST_CASE("a file path longer than the record keeps its end") {
  cuguard::violation v{};
  std::string path(300, 'a');
  path += "/kernel.cu";
  cuguard::detail::copy_tail(v.file, path.c_str());
  const std::string kept = v.file;
  CHECK(kept.size() == sizeof v.file - 1);
  CHECK(kept.rfind("...", 0) == 0);
  CHECK(kept.substr(kept.size() - 10) == "/kernel.cu");
}

TEST_CASE("a label longer than the record is cut at its end") {
  cuguard::violation v{};
  std::string label(100, 'x');
  cuguard::detail::copy_text(v.label, label.c_str());
  CHECK(std::string(v.label) == std::string(sizeof v.label - 1, 'x'));
}

TEST_CASE("a function's pretty name is recorded as its qualified name, its class's template arguments put in") {
  const auto recorded = [](const char* pretty) {
    cuguard::violation v{};
    cuguard::detail::copy_function(v.function, pretty);
    return std::string(v.function);
  };
  // (GCC's spelling, then nvcc's for device code)
  CHECK(recorded("void ScaleFunctor<in_t, out_t>::operator()(int, volatile int*, TensorListMetadata<2>&, float) "
                 "[with in_t = float; out_t = c10::Half]") == "ScaleFunctor<float, c10::Half>::operator()");
  CHECK(recorded("void ns::S<T, U>::operator()(const char **, M<2> &, T *) const [with T = float; U = int]") ==
        "ns::S<float, int>::operator()");
  CHECK(recorded("void A<T>::f(U) [with U = int; T = std::pair<int, float>]") == "A<std::pair<int, float>>::f");
  CHECK(recorded("void axpy_kernel(int, const float*, float*)") == "axpy_kernel");
  CHECK(recorded("float *twice(float *)") == "twice");
  CHECK(recorded("void (anonymous namespace)::g(int)") == "(anonymous namespace)::g");
  // A function template's own arguments where they are values; a type's parameter reads as GCC's
  // notes of the signature's typedefs do (size_t): then none.
  CHECK(recorded("void fps_kernel(int, const float*) [with unsigned int block_size = 512]") == "fps_kernel<512>");
  CHECK(recorded("void ns::S<T, U>::f(U) [with int B = 4; T = float; U = int]") == "ns::S<float, int>::f<4>");
  CHECK(recorded("void k(T*, size_t) [with T = float; size_t = long unsigned int]") == "k");
  CHECK(recorded("void k(const char **, T *) [with T = float; int N = 3]") == "k");
  // Not pretty names: as they are.
  CHECK(recorded("operator()") == "operator()");
  CHECK(recorded("point_sums") == "point_sums");
  CHECK(recorded("bool operator<(const A&, const A&)") == "bool operator<(const A&, const A&)");
  CHECK(recorded("helper<double>(double)::<lambda(int)>") == "helper<double>(double)::<lambda(int)>");
  CHECK(recorded(nullptr).empty());
  const std::string cut = recorded(("void " + std::string(200, 'n') + "::f(int)").c_str());
  CHECK(cut == std::string(sizeof cuguard::violation{}.function - 1, 'n'));
}

TEST_CASE("violation_error is a std::exception whose what() is the formatted report") {
  static_assert(std::is_base_of_v<std::exception, cuguard::violation_error>);
  const cuguard::violation_error e(report_tests::device_record());
  CHECK(std::string(e.what()) == cuguard::format(report_tests::device_record()));
  CHECK(e.report().line == 41);
  CHECK(e.report().kind == cuguard::violation_kind::out_of_bounds);
}

TEST_CASE("a violation record is trivially copyable so device code can fill it") {
  CHECK(std::is_trivially_copyable_v<cuguard::violation>);
  CHECK(std::is_standard_layout_v<cuguard::violation>);
}

TEST_CASE("detail::text writes integers at their edges, hex, and grows without limit") {
  using cuguard::detail::text;
  text t;
  CHECK(t.empty());
  CHECK(std::strcmp(t.c_str(), "") == 0);
  t << INT64_MIN << ' ' << INT64_MAX << ' ' << UINT64_MAX << ' ' << 0 << ' ' << -7 << ' ' << static_cast<unsigned char>(200);
  CHECK(std::string(t.c_str()) == "-9223372036854775808 9223372036854775807 18446744073709551615 0 -7 200");
  text h;
  h << cuguard::detail::hex{0} << ',' << cuguard::detail::hex{0xdeadbeefull} << ',' << cuguard::detail::hex{UINT64_MAX};
  CHECK(std::string(h.c_str()) == "0x0,0xdeadbeef,0xffffffffffffffff");
  // Long texts grow past every capacity step, and copies are deep.
  std::string expected;
  text long_text;
  for (int i = 0; i < 1000; ++i) {
    long_text << "word" << i << ' ';
    expected += "word" + std::to_string(i) + ' ';
  }
  CHECK(long_text.size() == expected.size());
  text copy = long_text;
  long_text.truncate(4);
  CHECK(std::string(long_text.c_str()) == "word");
  CHECK(std::string(copy.c_str()) == expected);
  text moved = std::move(copy);
  CHECK(std::string(moved.c_str()) == expected);
  moved.drop_front(4);
  CHECK(moved.starts_with("0 word1 "));
}

#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION
TEST_CASE("cuda_error carries its code and message, and is a std::exception") {
  static_assert(std::is_base_of<std::exception, cuguard::cuda_error>::value, "cuda_error is a std::exception");
  const cuguard::cuda_error e(2, "cuguard: cannot allocate: CUDA error cudaErrorMemoryAllocation (out of memory)");
  CHECK(e.code() == 2);
  CHECK(std::string(e.what()) == "cuguard: cannot allocate: CUDA error cudaErrorMemoryAllocation (out of memory)");
  const cuguard::cuda_error copy = e;
  CHECK(std::string(copy.what()) == e.what());
}
#endif

TEST_CASE("an offset held at 2^63 prints as the number it is, never negative") {
  // The record's int64 holds a shape's largest offset held at 2^63 (detail::shape_cap) as the
  // bits of INT64_MIN.
  cuguard::violation v{};
  v.kind = cuguard::violation_kind::invalid_argument;
  v.op = cuguard::operation::to_mdspan;
  std::strcpy(v.label, "wide");
  std::strcpy(v.type, "float");
  v.rank = 2;
  v.dim = -1;
  v.extent[0] = 3, v.extent[1] = 4;
  v.stride[0] = INT64_MAX, v.stride[1] = 1;
  v.figure = cuguard::shape_figure::largest_offset;
  v.value = static_cast<std::int64_t>(cuguard::detail::shape_cap);
  v.limit = INT64_MAX;
  const std::string held = cuguard::format(v);
  CHECK(held.find('-') == std::string::npos);
  CHECK(held.find("largest offset 9223372036854775808 or more: layout_stride's required span size exceeds the "
                  "index type's maximum 9223372036854775807") != std::string::npos);
  v.value = 2147483647;
  v.limit = 2147483647;
  CHECK(cuguard::format(v).find("largest offset 2147483647 + 1 (layout_stride's required span size)") != std::string::npos);
  // make_view's index overflow, of every figure the shape holds.
  v.kind = cuguard::violation_kind::index_overflow;
  v.op = cuguard::operation::make_view;
  for (const auto figure : {cuguard::shape_figure::largest_offset, cuguard::shape_figure::pointer_offset,
                            cuguard::shape_figure::element_count}) {
    v.figure = figure;
    v.value = static_cast<std::int64_t>(cuguard::detail::shape_cap);
    const std::string text = cuguard::format(v);
    CHECK(text.find('-') == std::string::npos);
    CHECK(text.find("9223372036854775808 or more") != std::string::npos);
  }
}

TEST_CASE("a kernel reads one way in every line of a report, as its source writes it") {
  cuguard::violation v = report_tests::device_record();
  // GCC's function names write "long int"; the demangler writes "4ul" and "long".
  std::strcpy(v.function, "index_select_kernel<4, float, long int>");
  std::strcpy(v.launch.kernel, "cuguard::kernels::index_select_kernel<4ul, float, long>");
  const std::string text = cuguard::format(v);
  CHECK(text.find("in index_select_kernel<4, float, long>\n") != std::string::npos);
  CHECK(text.find("cuguard::kernels::index_select_kernel<4, float, long><<<") != std::string::npos);
  std::strcpy(v.function, "k<long unsigned int, short int, 7u, -2ll, float4>");
  std::strcpy(v.launch.kernel, "k<unsigned long, short, 7, -2, float4>");
  const std::string more = cuguard::format(v);
  CHECK(more.find("in k<unsigned long, short, 7, -2, float4>\n") != std::string::npos);
  CHECK(more.find(" k<unsigned long, short, 7, -2, float4><<<") != std::string::npos);
  // Names that only look like them stay.
  std::strcpy(v.function, "long_int_kernel<my::long int2>");
  CHECK(cuguard::format(v).find("in long_int_kernel<my::long int2>\n") != std::string::npos);
}
