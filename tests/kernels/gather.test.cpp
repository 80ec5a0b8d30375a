// SPDX-License-Identifier: Apache-2.0
// The gather family against its double-precision references, its planted bugs, its argument errors.
#include "kernel_support.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/gather.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace k = cuguard::kernels;
namespace ref = cuguard::kernels::reference;
using kernel_test_support::marker_line;
using kernel_test_support::max_relative_error;
using kernel_test_support::random_indices;
using kernel_test_support::random_tensor;
using kernel_test_support::upload;

namespace gather_tests {

// index_select over a rank-R tensor of `shape` along `dim` with `k` indices; error against the reference.
template <std::size_t R, class I>
double index_select_error(const std::int64_t (&shape)[R], int dim, std::size_t count, unsigned seed) {
  const auto input = random_tensor(std::vector<std::int64_t>(shape, shape + R), seed);
  const auto index = random_indices(count, shape[dim], seed + 1);
  const auto want = ref::index_select(input, dim, index);
  auto d_in = upload<float>(input, "input");
  auto d_index = upload<I>(index, "index");
  cuguard::device_buffer<float> d_out(want.data.size() == 0 ? 1 : want.data.size(), "out");
  std::int64_t out_shape[R];
  for (std::size_t r = 0; r < R; ++r) out_shape[r] = want.shape[r];
  k::index_select(d_in.view(shape), dim, d_index.view({static_cast<std::int64_t>(count)}), d_out.view(out_shape));
  cuguard::check();
  return max_relative_error(d_out.to_host(), want.data);
}

} // namespace gather_tests

TEST_CASE("index_select matches the reference for every dimension, vector and scalar paths, int32 and int64 indices") {
  CHECK(gather_tests::index_select_error<2, std::int64_t>({50, 64}, 0, 17, 1) < 1e-6);  // embedding, 16-byte rows
  CHECK(gather_tests::index_select_error<2, std::int32_t>({50, 37}, 0, 23, 2) < 1e-6);  // odd row length
  CHECK(gather_tests::index_select_error<2, std::int64_t>({9, 40}, 1, 11, 3) < 1e-6);   // along columns
  CHECK(gather_tests::index_select_error<3, std::int32_t>({3, 7, 12}, 1, 5, 4) < 1e-6);
  CHECK(gather_tests::index_select_error<4, std::int64_t>({2, 3, 4, 5}, 3, 9, 5) < 1e-6);
  CHECK(gather_tests::index_select_error<1, std::int64_t>({100}, 0, 33, 6) < 1e-6);
}

TEST_CASE("gather matches the reference along every dimension") {
  for (int dim = 0; dim < 3; ++dim) {
    CAPTURE(dim);
    const std::int64_t shape[3] = {4, 5, 6};
    const std::int64_t index_shape[3] = {3, 4, 5};
    const auto input = random_tensor({4, 5, 6}, 10u + static_cast<unsigned>(dim));
    ref::tensor index({3, 4, 5});
    const auto raw = random_indices(index.data.size(), shape[dim], 20u + static_cast<unsigned>(dim));
    for (std::size_t i = 0; i < raw.size(); ++i) index.data[i] = static_cast<double>(raw[i]);
    const auto want = ref::gather(input, dim, index);
    auto d_in = upload<float>(input, "input");
    auto d_index = upload<std::int64_t>(raw, "index");
    cuguard::device_buffer<float> d_out(want.data.size(), "out");
    k::gather(d_in.view(shape), dim, d_index.view(index_shape), d_out.view(index_shape));
    cuguard::check();
    CHECK(max_relative_error(d_out.to_host(), want.data) < 1e-6);
  }
}

TEST_CASE("scatter_add matches the reference, duplicate indices adding up") {
  const auto base = random_tensor({6, 8}, 30);
  const auto src = random_tensor({10, 8}, 31);
  ref::tensor index({10, 8});
  const auto raw = random_indices(index.data.size(), 6, 32);
  for (std::size_t i = 0; i < raw.size(); ++i) index.data[i] = static_cast<double>(raw[i]);
  const auto want = ref::scatter_add(base, 0, index, src);
  auto d_out = upload<double>(base, "out");
  auto d_index = upload<std::int32_t>(raw, "index");
  auto d_src = upload<double>(src, "src");
  k::scatter_add(d_out.view({6, 8}), 0, d_index.view({10, 8}), d_src.view({10, 8}));
  cuguard::check();
  CHECK(max_relative_error(d_out.to_host(), want.data) < 1e-12);
}

TEST_CASE("scatter_add adds int64 values, PyTorch's default integer type, carries included") {
  const std::vector<std::int64_t> index = {0, 2, 0, 1, 2, 0}; // [6, 1]
  std::vector<std::int64_t> src(6);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = (std::int64_t{1} << 40) + 0xffffffffLL * static_cast<std::int64_t>(i) - 7;
  std::vector<std::int64_t> want(3, -5);
  for (std::size_t i = 0; i < index.size(); ++i) want[static_cast<std::size_t>(index[i])] += src[i];
  auto d_out = upload<std::int64_t>(std::vector<std::int64_t>(3, -5), "out");
  auto d_index = upload<std::int64_t>(index, "index");
  auto d_src = upload<std::int64_t>(src, "src");
  k::scatter_add(d_out.view({3, 1}), 0, d_index.view({6, 1}), d_src.view({6, 1}));
  cuguard::check();
  CHECK(d_out.to_host() == want);
}

TEST_CASE("masked_rows keeps the selected rows in order") {
  const auto input = random_tensor({1500, 5}, 40); // more rows than one scan chunk
  std::vector<int> mask(1500);
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (i * 7) % 3 == 0 ? 1 : 0;
  const auto want = ref::masked_rows(input, mask);
  auto d_in = upload<float>(input, "input");
  std::vector<unsigned char> mask_bytes(mask.begin(), mask.end());
  auto d_mask = upload<unsigned char>(mask_bytes, "mask");
  cuguard::device_buffer<float> d_out(want.data.size(), "out");
  k::masked_rows(d_in.view({1500, 5}), d_mask.view(), d_out.view({want.shape[0], 5}));
  cuguard::check();
  CHECK(max_relative_error(d_out.to_host(), want.data) < 1e-6);
}

TEST_CASE("masked_rows over more blocks than one scan chunk of their counts") {
  // 1025 blocks of 256 rows: the per-block counts themselves take two chunks of the scan.
  const std::int64_t rows = 1025 * 256;
  std::vector<unsigned char> mask(static_cast<std::size_t>(rows));
  std::vector<float> input(mask.size());
  std::vector<float> want;
  for (std::size_t i = 0; i < mask.size(); ++i) {
    input[i] = static_cast<float>(i);
    mask[i] = i % 3 == 1 || i + 1 == mask.size() ? 1 : 0;
    if (mask[i] != 0) want.push_back(input[i]);
  }
  auto d_in = upload<float>(input, "input");
  auto d_mask = upload<unsigned char>(mask, "mask");
  cuguard::device_buffer<float> d_out(want.size(), "out");
  k::masked_rows(d_in.view({rows, 1}), d_mask.view(), d_out.view({static_cast<std::int64_t>(want.size()), 1}));
  cuguard::check();
  CHECK(d_out.to_host() == want);
}

// -------------------------------------------------------------------------------------------------
// Planted bugs: the report names the kernel's own access line, the tensor and the bad index
// -------------------------------------------------------------------------------------------------

CUGUARD_CHECKED_TEST("an index past the end in index_select is reported at the kernel's access") {
  for (const std::int64_t width : {8, 7}) { // vector path, then scalar path
    CAPTURE(width);
    std::vector<float> table(4 * static_cast<std::size_t>(width), 1.0f);
    auto d_table = upload<float>(table, "embeddings");
    auto d_index = upload<std::int64_t>(std::vector<std::int64_t>{0, 3, 4}, "mask_idx");
    cuguard::device_buffer<float> d_out(3 * static_cast<std::size_t>(width), "gathered");
    k::index_select(d_table.view({4, width}), 0, d_index.view(), d_out.view({3, width}));
    const auto c = device_test_support::checked();
    REQUIRE(c.thrown);
    const cuguard::violation& v = c.report;
    CHECK(device_test_support::ends_with(v.file, "cuguard/kernels/gather.hpp"));
    CHECK(v.line == marker_line(v.file, width == 8 ? "index_select_vector" : "index_select"));
    CHECK(std::string(v.label) == "embeddings");
    CHECK(v.dim == 1); // [outer, rows, inner]: the rows
    CHECK(v.index[1] == 4);
    CHECK(v.extent[1] == 4);
    CHECK(std::string(v.origin_label) == "mask_idx");
    CHECK(v.origin_index[0] == 2);
  }
}

CUGUARD_CHECKED_TEST("a bad index in gather is reported at the kernel's access") {
  auto d_in = upload<float>(std::vector<float>(2 * 3, 1.0f), "input");
  auto d_index = upload<std::int64_t>(std::vector<std::int64_t>{0, 1, 2, 0, 3, 1}, "index");
  cuguard::device_buffer<float> d_out(6, "out");
  k::gather(d_in.view({2, 3}), 1, d_index.view({2, 3}), d_out.view({2, 3}));
  const auto c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.line == marker_line(c.report.file, "gather"));
  CHECK(std::string(c.report.label) == "input");
  CHECK(c.report.dim == 1);
  CHECK(c.report.index[1] == 3);
  CHECK(c.report.origin_index[0] == 1);
  CHECK(c.report.origin_index[1] == 1);
}

CUGUARD_CHECKED_TEST("a bad index in scatter_add is reported at the kernel's access") {
  auto d_out = upload<float>(std::vector<float>(3, 0.0f), "counts");
  auto d_index = upload<std::int32_t>(std::vector<std::int32_t>{0, 2, 3, 1}, "bucket");
  auto d_src = upload<float>(std::vector<float>(4, 1.0f), "ones");
  k::scatter_add(d_out.view(), 0, d_index.view(), d_src.view());
  const auto c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.line == marker_line(c.report.file, "scatter_add"));
  CHECK(std::string(c.report.label) == "counts");
  CHECK(c.report.index[0] == 3);
  CHECK(std::string(c.report.origin_label) == "bucket");
}

CUGUARD_CHECKED_TEST("a bad position in masked_rows_kernel is reported at the kernel's access") {
  auto d_in = upload<float>(std::vector<float>(3 * 4, 1.0f), "input");
  auto d_positions = upload<std::int64_t>(std::vector<std::int64_t>{0, -1, 2}, "positions");
  cuguard::device_buffer<float> d_out(2 * 4, "selected");
  cuguard::launch(k::masked_rows_kernel<float>, 3, 32, cuguard::checked_view<const float, 2>(d_in.view({3, 4})),
                  cuguard::checked_view<const std::int64_t, 1>(d_positions.view()), d_out.view({2, 4}));
  const auto c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.line == marker_line(c.report.file, "masked_rows"));
  CHECK(std::string(c.report.label) == "selected");
  CHECK(c.report.index[0] == 2);
  CHECK(std::string(c.report.origin_label) == "positions");
}

// -------------------------------------------------------------------------------------------------
// Argument errors: named argument, dimension, value and expectation; nothing is launched
// -------------------------------------------------------------------------------------------------


namespace gather_tests {
/// The message of the argument_error that `call` throws ("no argument_error" if none), without
/// its last line, which must name the caller in this file.
template <class Call>
std::string expect(Call call) {
  try {
    call();
  } catch (const k::argument_error& e) {
    const std::string what = e.what();
    const auto cut = what.find("\n  at " __FILE__ ":");
    return cut == std::string::npos ? "no caller line in: " + what : what.substr(0, cut);
  }
  return "no argument_error";
}
} // namespace gather_tests
using gather_tests::expect;

TEST_CASE("index_select names a bad dim, a wrong out shape, strided memory and host memory" *
          cuguard_test::host_memory_suite()) {
  cuguard::device_buffer<float> table(4 * 8, "table"), out(3 * 8, "out");
  auto ids = upload<std::int64_t>(std::vector<std::int64_t>{0, 1, 2}, "ids");
  CHECK(expect([&] { k::index_select(table.view({4, 8}), 2, ids.view(), out.view({3, 8})); }) ==
        "index_select: dim 2 is out of range for input of rank 2 (expected 0 <= dim < 2)");
  CHECK(expect([&] { k::index_select(table.view({4, 8}), 0, ids.view(), out.view({4, 6})); }) ==
        "index_select: out has shape [4, 6], expected [3, 8] (input [4, 8] with dim 0 of size 3 = the length of index)");
  CHECK(expect([&] { k::index_select(table.view({8, 4}).transpose(0, 1), 1, ids.view(), out.view({4, 3})); })
            .rfind("index_select: input has shape [4, 8] and strides [1, 4], expected a contiguous", 0) == 0);
  std::vector<float> host(32);
  CHECK(expect([&] { k::index_select(cuguard::make_view(host.data(), {4, 8}, "cpu_table"), 0, ids.view(), out.view({3, 8})); }) ==
        (cuguard::checks_enabled ? "index_select: input is in host memory; the kernel needs device memory (a "
                                   "device_buffer, or pinned/managed memory)"
                                 : "no argument_error"));
}

TEST_CASE("gather, scatter_add and masked_rows name the argument and dimension that do not fit") {
  cuguard::device_buffer<float> a(24, "a"), b(24, "b");
  cuguard::device_buffer<std::int64_t> idx(24, "idx");
  cuguard::device_buffer<unsigned char> mask(5, "mask");
  CHECK(expect([&] { k::gather(a.view({2, 3}), 0, idx.view({2, 4}), b.view({2, 4})); }) ==
        "gather: index has shape [2, 4] and input [2, 3]: dim 1 of index (4) exceeds input's (3)");
  CHECK(expect([&] { k::gather(a.view({2, 3}), 0, idx.view({2, 3}), b.view({3, 2})); }) ==
        "gather: out has shape [3, 2], expected [2, 3] (the shape of index)");
  CHECK(expect([&] { k::scatter_add(a.view({2, 3}), 1, idx.view({3, 3}), b.view({3, 3})); }) ==
        "scatter_add: index has shape [3, 3] and out [2, 3]: dim 0 of index (3) exceeds out's (2)");
  CHECK(expect([&] { k::masked_rows(a.view({4, 6}), mask.view(), b.view({2, 6})); }) ==
        "masked_rows: mask has shape [5], expected [4] (one entry per row of input [4, 6])");
}
