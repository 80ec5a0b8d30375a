// SPDX-License-Identifier: Apache-2.0
// Violations inside native kernels: the record, the count, the policies, the program going on.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/detail/runtime/launch_attribution.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using cuguard::violation_kind;
using device_test_support::checked;
using device_test_support::ends_with;

namespace device_tests {

__global__ void write_at(cuguard::checked_view<float, 1> out, int i) {
  if (blockIdx.x == 1 && threadIdx.x == 3) out[i] = 1.0f;
}
constexpr unsigned write_at_line = __LINE__ - 2;

/// One thread of a three-dimensional launch writes out of bounds: block (1,2,3), thread (4,1,1).
__global__ void write_at_3d(cuguard::checked_view<float, 1> out) {
  if (blockIdx.x == 1 && blockIdx.y == 2 && blockIdx.z == 3 && threadIdx.x == 4 && threadIdx.y == 1 && threadIdx.z == 1)
    out[out.extent(0)] = 1.0f;
}

/// out[i] = first + i: each thread adds its index to its own copy of `first`.
__global__ void count_from(cuguard::checked_view<int, 1> out, int first) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  first += i;
  if (i < out.extent(0)) out[i] = first;
}

__global__ void iota(cuguard::checked_view<float, 1> out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < out.extent(0)) out[i] = static_cast<float>(i);
}

__global__ void all_out_of_bounds(cuguard::checked_view<float, 2> out) {
  out(static_cast<int>(blockIdx.x) + 1000, static_cast<int>(threadIdx.x)) = 1.0f;
}
constexpr unsigned all_out_of_bounds_line = __LINE__ - 2;

__global__ void gather_rows(cuguard::checked_view<const float, 2> table, cuguard::checked_view<const int, 1> rows,
                            cuguard::checked_view<float, 2> out) {
  const auto row = cuguard::index_from(rows, blockIdx.x);
  for (int j = static_cast<int>(threadIdx.x); j < out.extent(1); j += static_cast<int>(blockDim.x))
    out(blockIdx.x, j) = table(row, j);
}
constexpr unsigned gather_rows_line = __LINE__ - 2;

__global__ void tile_overflow(cuguard::checked_view<float, 1> out, int extra) {
  __shared__ float storage[32];
  auto tile = cuguard::make_view(storage, {32}, "tile");
  tile[threadIdx.x + static_cast<unsigned>(extra)] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}
constexpr unsigned tile_overflow_line = __LINE__ - 4;

/// A view inside a struct: launch() does not inspect it, so only device code can catch it.
struct wrapped {
  cuguard::checked_view<float, 1> v;
};
__global__ void read_wrapped(wrapped w, cuguard::checked_view<float, 1> out) {
  if (threadIdx.x == 0) out[0] = w.v[0];
}
constexpr unsigned read_wrapped_line = __LINE__ - 2;

/// Keeps its view argument in device memory, for use_kept to access in a later launch.
__global__ void keep(cuguard::checked_view<cuguard::checked_view<float, 1>, 1> store, cuguard::checked_view<float, 1> v) {
  if (blockIdx.x == 0 && threadIdx.x == 0) store[0] = v;
}
__global__ void use_kept(cuguard::checked_view<const cuguard::checked_view<float, 1>, 1> store, int i) {
  if (blockIdx.x == 0 && threadIdx.x == 0) store[0][i] = 1.0f;
}

__global__ void vector_copy(cuguard::checked_view<const float, 1> in, cuguard::checked_view<float, 1> out, int at) {
  if (threadIdx.x == 0) out.store<4>(in.load<4>(at), 0);
}
constexpr unsigned vector_copy_line = __LINE__ - 2;

} // namespace device_tests

namespace {
// A kernel the dynamic symbol table does not list (internal linkage), as extensions often write.
__global__ void local_write(cuguard::checked_view<float, 1> out) { out[out.extent(0)] = 1.0f; }
} // namespace

CUGUARD_CHECKED_TEST("an out-of-bounds write in a kernel is reported with its line, thread and launch") {
  cuguard::device_buffer<float> buf(64, "activations");
  cuguard::launch(device_tests::write_at, 2, 32, buf.view(), 64); const unsigned launch_line = __LINE__;
  const auto c = checked();
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.kind == violation_kind::out_of_bounds);
  CHECK(ends_with(v.file, "reports.test.cpp"));
  CHECK(v.line == device_tests::write_at_line);
  CHECK(std::string(v.label) == "activations");
  CHECK(v.dim == 0);
  CHECK(v.index[0] == 64);
  CHECK(v.extent[0] == 64);
  CHECK(v.on_device);
  CHECK(v.block[0] == 1);
  CHECK(v.thread[0] == 3);
  CHECK(std::string(v.launch.kernel) == "device_tests::write_at");
  CHECK(v.launch.site.line == launch_line);
  CHECK(v.launch.grid[0] == 2);
  CHECK(v.launch.block[0] == 32);
  CHECK(v.count == 1);
  const std::string expected_tail = "\n  block (1,0,0) thread (3,0,0) of launch #" + std::to_string(v.launch.id) +
                                    " device_tests::write_at<<<(2,1,1),(32,1,1)>>> at " + std::string(__FILE__) + ":" +
                                    std::to_string(launch_line) + " in " + __func__;
  CHECK(ends_with(c.what, expected_tail));
  CHECK(c.what.rfind("cuguard: out-of-bounds access to 'activations' float[64] at (64): dim 0 index 64 >= extent 64\n"
                     "  at ",
                     0) == 0);
}

CUGUARD_CHECKED_TEST("a report gives each coordinate of the thread, the grid and the block") {
  cuguard::device_buffer<float> buf(8, "out");
  cuguard::launch({dim3(2, 3, 4), dim3(5, 3, 2)}, device_tests::write_at_3d, buf.view());
  const auto c = checked();
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.index[0] == 8);
  CHECK(v.block[0] == 1);
  CHECK(v.block[1] == 2);
  CHECK(v.block[2] == 3);
  CHECK(v.thread[0] == 4);
  CHECK(v.thread[1] == 1);
  CHECK(v.thread[2] == 1);
  CHECK(v.launch.grid[0] == 2);
  CHECK(v.launch.grid[1] == 3);
  CHECK(v.launch.grid[2] == 4);
  CHECK(v.launch.block[0] == 5);
  CHECK(v.launch.block[1] == 3);
  CHECK(v.launch.block[2] == 2);
  CHECK(v.count == 1);
  CHECK(c.what.find("block (1,2,3) thread (4,1,1) of launch #") != std::string::npos);
  CHECK(c.what.find("<<<(2,3,4),(5,3,2)>>>") != std::string::npos);
}

CUGUARD_CHECKED_TEST("a report names a kernel of an anonymous namespace") {
  cuguard::device_buffer<float> buf(4, "out");
  cuguard::launch(local_write, 1, 1, buf.view());
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(std::string(c.report.launch.kernel) == "(anonymous namespace)::local_write");
}

CUGUARD_CHECKED_TEST("after a reported violation the program launches again and succeeds") {
  cuguard::device_buffer<float> buf(64, "buf");
  cuguard::launch(device_tests::write_at, 2, 32, buf.view(), 100);
  CHECK(checked().thrown);
  cuguard::launch(device_tests::iota, 2, 32, buf.view());
  const auto c = checked();
  CHECK_FALSE(c.thrown);
  const std::vector<float> host = buf.to_host();
  CHECK(host[0] == 0.0f);
  CHECK(host[63] == 63.0f);
}

CUGUARD_CHECKED_TEST("when all 16384 threads violate there is one complete record and a count of 16384") {
  cuguard::device_buffer<float> buf(64 * 256, "grid");
  cuguard::launch(device_tests::all_out_of_bounds, 64, 256, buf.view({64, 256}));
  const auto c = checked();
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.count == 16384);
  CHECK(v.kind == violation_kind::out_of_bounds);
  CHECK(v.line == device_tests::all_out_of_bounds_line);
  CHECK(std::string(v.label) == "grid");
  CHECK(std::string(v.type) == "float");
  CHECK(v.rank == 2);
  CHECK(v.extent[0] == 64);
  CHECK(v.extent[1] == 256);
  // The record is the winning thread's, whole: its index matches its own block and thread.
  CHECK(v.index[0] == static_cast<std::int64_t>(v.block[0]) + 1000);
  CHECK(v.index[1] == static_cast<std::int64_t>(v.thread[0]));
  if (cuguard::device_violation_policy == cuguard::device_policy::proceed) {
    CHECK_FALSE(v.count_is_lower_bound);
    CHECK(ends_with(c.what, "\n  (16383 more violations in this launch)"));
  } else {
    CHECK(v.count_is_lower_bound); // each thread stopped at its first
    CHECK(ends_with(c.what, "\n  (16383 more threads stopped at a violation in this launch)"));
  }
  CHECK_FALSE(checked().thrown); // the channel was cleared
}

CUGUARD_CHECKED_TEST("a bad index read in a kernel is reported with where it came from") {
  std::vector<float> table_host(4 * 8, 1.0f);
  std::vector<int> rows_host = {0, 3, 4, 1};
  cuguard::device_buffer<float> table(table_host.size(), "embeddings");
  cuguard::device_buffer<int> rows(rows_host.size(), "mask_idx");
  cuguard::device_buffer<float> out(4 * 8, "gathered");
  table.copy_from_host(table_host);
  rows.copy_from_host(rows_host);
  cuguard::launch(device_tests::gather_rows, 4, 8, table.view({4, 8}), rows.view(), out.view({4, 8}));
  const auto c = checked();
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.line == device_tests::gather_rows_line);
  CHECK(std::string(v.label) == "embeddings");
  CHECK(v.index[0] == 4);
  CHECK(v.origin == cuguard::index_origin::index_view);
  CHECK(std::string(v.origin_label) == "mask_idx");
  CHECK(v.origin_index[0] == 2);
  CHECK(v.block[0] == 2);
  CHECK(v.count == 8);
  CHECK(c.what.find("\n  index 4 came from 'mask_idx'[2]\n") != std::string::npos);
}

CUGUARD_CHECKED_TEST("an overflow of a shared-memory tile is reported with the tile's label") {
  cuguard::device_buffer<float> out(32, "out");
  cuguard::launch(device_tests::tile_overflow, 1, 32, out.view(), 1);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.line == device_tests::tile_overflow_line);
  CHECK(std::string(c.report.label) == "tile");
  CHECK(c.report.index[0] == 32);
  CHECK(c.report.thread[0] == 31);
  CHECK(c.report.count == 1);
}

CUGUARD_CHECKED_TEST("a misaligned vector load in a kernel is reported") {
  cuguard::device_buffer<float> in(16, "in");
  cuguard::device_buffer<float> out(16, "out");
  cuguard::launch(device_tests::vector_copy, 1, 32, in.view(), out.view(), 2);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::misaligned);
  CHECK(c.report.line == device_tests::vector_copy_line);
  CHECK(c.report.bytes == 16);
}

// -------------------------------------------------------------------------------------------------
// Lifetime
// -------------------------------------------------------------------------------------------------

CUGUARD_CHECKED_TEST("a kernel queued before a stream-ordered release is not flagged") {
  cuguard::device_buffer<float> buf(64, "early");
  cuguard::launch(device_tests::iota, 2, 32, buf.view());
  buf.release();
  CHECK_FALSE(checked().thrown);
}

CUGUARD_CHECKED_TEST("launching with a view of a released buffer is use_after_free at the launch") {
  cuguard::device_buffer<float> buf(64, "hidden");
  auto stale = buf.view();
  buf.release(); const unsigned release_line = __LINE__;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::launch(device_tests::iota, 2, 32, stale)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  CHECK(c.report.op == cuguard::operation::launch);
  CHECK(c.report.free_site.line == release_line);
  CHECK(ends_with(c.what, at));
  CHECK(c.what.rfind("cuguard: use after free: kernel argument 'hidden' float[64] of device_tests::iota: allocation "
                     "'hidden' (256 bytes) was released",
                     0) == 0);
}

CUGUARD_CHECKED_TEST("device code reading a released buffer through a struct reports use_after_free") {
  cuguard::device_buffer<float> buf(64, "freed");
  cuguard::device_buffer<float> out(1, "out");
  const device_tests::wrapped w{buf.view()};
  buf.release(); const unsigned release_line = __LINE__;
  cuguard::launch(device_tests::read_wrapped, 1, 32, w, out.view());
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  CHECK(c.report.line == device_tests::read_wrapped_line);
  CHECK(std::string(c.report.alloc_label) == "freed");
  CHECK(c.report.free_site.line == release_line);
}

// -------------------------------------------------------------------------------------------------
// Memory spaces
// -------------------------------------------------------------------------------------------------

CUGUARD_CHECKED_TEST("launching with a view of host memory is wrong_memory_space before the kernel runs" *
                     cuguard_test::host_memory_suite()) {
  std::vector<float> host(64, 0.0f);
  auto cpu_tensor = cuguard::make_view(host.data(), {64}, "cpu_tensor");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::launch(device_tests::iota, 2, 32, cpu_tensor)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::wrong_memory_space);
  CHECK(c.what == "cuguard: wrong memory space: kernel argument 'cpu_tensor' float[64] of device_tests::iota: the "
                  "view points to host memory, which device code cannot access" + at);
  CHECK(host[1] == 0.0f); // the kernel did not run
}

CUGUARD_CHECKED_TEST("device code touching host memory through a struct reports wrong_memory_space" *
                     cuguard_test::host_memory_suite()) {
  std::vector<float> host(8, 0.0f);
  cuguard::device_buffer<float> out(1, "out");
  const device_tests::wrapped w{cuguard::make_view(host.data(), {8}, "cpu_tensor")};
  cuguard::launch(device_tests::read_wrapped, 1, 32, w, out.view());
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::wrong_memory_space);
  CHECK(c.report.line == device_tests::read_wrapped_line);
  CHECK(c.what.find("the view points to host memory, which device code cannot access") != std::string::npos);
}

CUGUARD_CHECKED_TEST("host code reading device memory reports wrong_memory_space") {
  cuguard::device_buffer<float> buf(4, "weights");
  auto v = buf.view();
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v[0]); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.what == "cuguard: wrong memory space: access to 'weights' float[4] at (0): the view points to device " +
                      std::to_string(buf.device()) + " memory, which host code cannot access" + at);
}

// -------------------------------------------------------------------------------------------------
// Launch
// -------------------------------------------------------------------------------------------------

namespace {
/// Two streams (distinct handles under emulation, which runs every launch at once), destroyed at
/// the end of a test.
struct two_streams {
  cudaStream_t first = nullptr, second = nullptr;
  two_streams() {
#if CUGUARD_IMPL_EMULATION
    first = reinterpret_cast<cudaStream_t>(std::uintptr_t{16});
    second = reinterpret_cast<cudaStream_t>(std::uintptr_t{32});
#else
    REQUIRE(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking) == cudaSuccess);
#endif
  }
  two_streams(const two_streams&) = delete;
  two_streams& operator=(const two_streams&) = delete;
  ~two_streams() {
#if !CUGUARD_IMPL_EMULATION
    cudaStreamDestroy(first);
    cudaStreamDestroy(second);
#endif
  }
};
} // namespace

CUGUARD_CHECKED_TEST("a view argument names its own launch, whatever other streams launched") {
  cuguard::device_buffer<float> buf(64, "streams");
  two_streams s;
  cuguard::check(); // a fresh start: no stream launched on since
  cuguard::launch({dim3(2), dim3(32), 0, s.first}, device_tests::write_at, buf.view(), 70);
  const unsigned write_line = __LINE__ - 1;
  cuguard::launch({dim3(1), dim3(32), 0, s.second}, device_tests::iota, buf.view());
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(std::string(c.report.launch.kernel) == "device_tests::write_at");
  CHECK(c.report.launch.site.line == write_line);
  // (On a GPU, iota's launch number may reach the device first: the report then says it named
  // the launch that passed the view, never that the launch named may be another stream's.)
  CHECK(c.what.find("may be another stream's") == std::string::npos);
}

CUGUARD_CHECKED_TEST("a view made in device code after launches on several streams: the launch named may be another's") {
  cuguard::device_buffer<float> buf(64, "streams");
  two_streams s;
  cuguard::check();
  cuguard::launch({dim3(1), dim3(32), 0, s.first}, device_tests::iota, buf.view());
  cuguard::launch({dim3(1), dim3(32), 0, s.second}, device_tests::tile_overflow, buf.view(), 1);
  const auto two = checked();
  REQUIRE(two.thrown);
  CHECK(std::string(two.report.label) == "tile");
#if CUGUARD_IMPL_EMULATION
  // Emulated launches run one at a time: the last one is the running one.
  CHECK(two.what.find("streams since the device was last checked") == std::string::npos);
#else
  CHECK(two.what.find("launches on 2 streams since the device was last checked as a whole, and the view carries "
                      "no launch number") != std::string::npos);
#endif

  // One stream only: no such note.
  cuguard::launch({dim3(1), dim3(32), 0, s.second}, device_tests::tile_overflow, buf.view(), 1);
  const auto one = checked();
  REQUIRE(one.thrown);
  CHECK(std::string(one.report.launch.kernel) == "device_tests::tile_overflow");
  CHECK(one.what.find("streams since the device was last checked") == std::string::npos);
}

CUGUARD_CHECKED_TEST("a view kept in memory by an earlier launch: the report names the launch that used it") {
  cuguard::device_buffer<float> buf(64, "kept");
  cuguard::device_buffer<cuguard::checked_view<float, 1>> store(1, "store");
  cuguard::check();
  cuguard::launch(device_tests::keep, 1, 32, store.view(), buf.view());
  cuguard::launch(device_tests::use_kept, 1, 32, store.view(), 64);
  const unsigned use_line = __LINE__ - 1;
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(std::string(c.report.label) == "kept");
  CHECK(std::string(c.report.launch.kernel) == "device_tests::use_kept");
  CHECK(c.report.launch.site.line == use_line);
  CHECK(c.what.find("(the view was passed to launch #" + std::to_string(c.report.launch.id - 1) +
                    " and kept in memory)") != std::string::npos);

  // On two streams, kept by a launch of another grid: still the launch that used it.
  two_streams s;
  cuguard::launch({dim3(2), dim3(32), 0, s.first}, device_tests::keep, store.view(), buf.view());
#if !CUGUARD_IMPL_EMULATION
  cudaEvent_t kept = nullptr; // use_kept reads what keep wrote
  REQUIRE(cudaEventCreateWithFlags(&kept, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventRecord(kept, s.first) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s.second, kept, 0) == cudaSuccess);
  cudaEventDestroy(kept);
#endif
  cuguard::launch({dim3(1), dim3(32), 0, s.second}, device_tests::use_kept, store.view(), 64);
  const unsigned second_use_line = __LINE__ - 1;
  const auto two = checked();
  REQUIRE(two.thrown);
  CHECK(std::string(two.report.launch.kernel) == "device_tests::use_kept");
  CHECK(two.report.launch.site.line == second_use_line);
  CHECK(two.what.find("and kept in memory") != std::string::npos);
}

CUGUARD_CHECKED_TEST("which launch a record names: the device's last one, or the one that passed the view") {
  using cuguard::detail::choose_launch;
  using cuguard::detail::launch_entry;
  launch_entry five, seven;
  five.id = 5, five.grid = dim3(4), five.block = dim3(128), five.stream = reinterpret_cast<cudaStream_t>(std::uintptr_t{16});
  seven.id = 7, seven.grid = dim3(1), seven.block = dim3(32), seven.stream = reinterpret_cast<cudaStream_t>(std::uintptr_t{32});
  const auto record = [](unsigned grid, unsigned block) {
    cuguard::violation v{};
    v.launch.grid[0] = grid, v.launch.grid[1] = v.launch.grid[2] = 1;
    v.launch.block[0] = block, v.launch.block[1] = v.launch.block[2] = 1;
    return v;
  };
  cuguard::detail::launch_evidence e;
  e.last = 7, e.last_entry = &seven, e.carried = 5, e.carried_entry = &five, e.streams = 2, e.may_overlap = true;

  // Kernels may have overlapped, and the violation ran with launch #5's grid: launch #5, said.
  cuguard::violation v = record(4, 128);
  CHECK(std::string(choose_launch(v, e).c_str()).find("named after the launch that passed the view; the device's launch counter "
                                 "showed #7") != std::string::npos);
  CHECK(v.launch.id == 5);
  // Another grid than launch #5's: the view was kept; the last launch, with the caveat.
  v = record(1, 32);
  const std::string kept = std::string(choose_launch(v, e).c_str());
  CHECK(v.launch.id == 7);
  CHECK(kept.find("(the view was passed to launch #5 and kept in memory; launches on 2 streams") != std::string::npos);
  // The same stream: launch #5 had finished before #7 started.
  launch_entry five_same = five;
  five_same.stream = seven.stream;
  e.carried_entry = &five_same;
  v = record(4, 128);
  CHECK(std::string(choose_launch(v, e).c_str()).find("kept in memory") != std::string::npos);
  CHECK(v.launch.id == 7);
  // No overlap possible (one stream, emulation, launch blocking): the last launch, certain.
  e.carried_entry = &five, e.may_overlap = false, e.streams = 1;
  v = record(4, 128);
  CHECK(std::string(choose_launch(v, e).c_str()) == "\n  (the view was passed to launch #5 and kept in memory)");
  CHECK(v.launch.id == 7);
  // Launch #5 no longer known (older than the runtime remembers): the last launch.
  e.carried_entry = nullptr, e.may_overlap = true, e.streams = 2;
  v = record(4, 128);
  (void)choose_launch(v, e);
  CHECK(v.launch.id == 7);
  // The device never saw a launch number, the view's launch fits: the view's.
  e.last = 0, e.last_entry = nullptr, e.carried_entry = &five;
  v = record(4, 128);
  CHECK(std::string(choose_launch(v, e).c_str()).empty());
  CHECK(v.launch.id == 5);
  // No number carried: the last launch, with the caveat only when kernels may have overlapped.
  e.last = 7, e.last_entry = &seven, e.carried = 0, e.carried_entry = nullptr;
  v = record(1, 32);
  CHECK(std::string(choose_launch(v, e).c_str()).find("the view carries no launch number") != std::string::npos);
  CHECK(v.launch.id == 7);
  e.may_overlap = false;
  CHECK(std::string(choose_launch(v, e).c_str()).empty());
  // A view made in host code that no cuguard::launch passed (a <<<>>> launch under nvcc): the
  // device's last launch only where its grid and block fit, with the doubt said; otherwise no
  // launch of cuguard's, and the report says so.
  e.host_view = true;
  v = record(1, 32);
  const std::string fits = std::string(choose_launch(v, e).c_str());
  CHECK(v.launch.id == 7);
  CHECK(fits.find("no cuguard::launch passed it: the launch named is the device's last, whose grid and block fit") !=
        std::string::npos);
  v = record(4, 128);
  const std::string foreign = std::string(choose_launch(v, e).c_str());
  CHECK(v.launch.id == 0);
  CHECK(foreign.find("passed by a launch not made through cuguard::launch, such as <<<>>>") != std::string::npos);
  v.on_device = true;
  CHECK(cuguard::format(v).find(" of a launch not made through cuguard::launch <<<(4,1,1),(128,1,1)>>>") != std::string::npos);
}

#if !CUGUARD_IMPL_EMULATION
CUGUARD_CHECKED_TEST("a <<<>>> launch with a view made in host code is reported as a launch not made through cuguard::launch") {
  cuguard::device_buffer<float> buf(64, "plain");
  cuguard::launch(device_tests::iota, 2, 32, buf.view()); // the device's last launch: another grid
  cuguard::check();
  device_tests::write_at<<<3, 64>>>(buf.view(), 64);
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.launch.id == 0);
  CHECK(c.report.line == device_tests::write_at_line);
  CHECK(c.what.find("\n  block (1,0,0) thread (3,0,0) of a launch not made through cuguard::launch <<<(3,1,1),(64,1,1)>>>") !=
        std::string::npos);
  CHECK(c.what.find("launch the kernel with cuguard::launch") != std::string::npos);
}

CUGUARD_CHECKED_TEST("a launch captured into a CUDA graph reports when the graph runs") {
  cuguard::device_buffer<float> buf(64, "captured");
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cuguard::launch({dim3(1), dim3(32), 0, stream}, device_tests::iota, buf.view()); // channel made before capture
  cuguard::check(stream);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  cuguard::launch({dim3(2), dim3(32), 0, stream}, device_tests::write_at, buf.view(), 70);
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::check(stream));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  REQUIRE(c.thrown);
  CHECK(c.report.line == device_tests::write_at_line);
  CHECK(c.report.index[0] == 70);
  CHECK(std::string(c.report.launch.kernel).find("write_at") != std::string::npos);
}
#endif

CUGUARD_CHECKED_TEST("with CUGUARD_LAUNCH_BLOCKING=1 the launch itself reports the violation") {
  cuguard::device_buffer<float> buf(64, "blocking");
  ::setenv("CUGUARD_LAUNCH_BLOCKING", "1", 1);
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::launch(device_tests::write_at, 2, 32, buf.view(), 70));
  ::unsetenv("CUGUARD_LAUNCH_BLOCKING");
  REQUIRE(c.thrown);
  CHECK(c.report.line == device_tests::write_at_line);
  CHECK(c.report.index[0] == 70);
}

TEST_CASE("launch with a config runs the kernel over the whole grid") {
  cuguard::device_buffer<float> buf(100, "buf");
  cuguard::launch({dim3(4), dim3(32)}, device_tests::iota, buf.view());
  cuguard::check();
  const std::vector<float> host = buf.to_host();
  CHECK(host[99] == 99.0f);
  CHECK(host[50] == 50.0f);
}

TEST_CASE("launch<kernel> runs the kernel named at compile time over the grid, in both forms, with its arguments") {
  cuguard::device_buffer<int> buf(100, "counts");
  cuguard::launch<device_tests::count_from>(4, 32, buf.view(), 7);
  cuguard::check();
  std::vector<int> host = buf.to_host();
  bool each = true;
  for (int i = 0; i < 100; ++i) each = each && host[static_cast<std::size_t>(i)] == 7 + i;
  CHECK(each);
  cuguard::launch<device_tests::count_from>({dim3(2), dim3(64), 0, nullptr}, buf.view(), -3);
  cuguard::check();
  host = buf.to_host();
  CHECK(host[0] == -3);
  CHECK(host[99] == 96);
}

CUGUARD_CHECKED_TEST("a violation in a kernel launched by launch<kernel> names the kernel and the launch's line") {
  cuguard::device_buffer<float> buf(64, "activations");
  cuguard::launch<device_tests::write_at>(2, 32, buf.view(), 64); const unsigned launch_line = __LINE__;
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.line == device_tests::write_at_line);
  CHECK(c.report.block[0] == 1);
  CHECK(c.report.thread[0] == 3);
  CHECK(std::string(c.report.launch.kernel) == "device_tests::write_at");
  CHECK(c.report.launch.site.line == launch_line);
}

TEST_CASE("device_buffer copies to and from host memory") {
  cuguard::device_buffer<int> buf(5, "ints");
  CHECK(buf.size() == 5);
  CHECK(buf.bytes() == 5 * sizeof(int));
  buf.copy_from_host(std::vector<int>{1, 2, 3, 4, 5});
  CHECK(buf.to_host() == std::vector<int>{1, 2, 3, 4, 5});
  CHECK_THROWS_AS(buf.copy_from_host(std::vector<int>(6)), std::out_of_range);
}

TEST_CASE("a recorded text is read in pieces that never cross a 64-byte boundary") {
  // A text that starts 10 bytes before a boundary and runs 100 characters past it.
  alignas(64) char memory[256] = {};
  char* text = memory + 54;
  for (int i = 0; i < 110; ++i) text[i] = static_cast<char>('a' + i % 26);
  std::vector<std::pair<std::uintptr_t, std::size_t>> pieces;
  const auto copy = [&](void* dst, const void* src, std::size_t bytes) {
    pieces.emplace_back(reinterpret_cast<std::uintptr_t>(src), bytes);
    std::memcpy(dst, src, bytes);
    return true;
  };
  cuguard::detail::text out;
  REQUIRE(cuguard::detail::backend::read_text_in_pieces(reinterpret_cast<std::uint64_t>(text), out, copy));
  CHECK(std::string(out.c_str()) == text);
  REQUIRE(pieces.size() == 3); // 10 bytes, 64 bytes, then the piece with the terminator
  for (const auto& [at, bytes] : pieces) CHECK((at % 64) + bytes <= 64);
  CHECK(pieces[0].second == 10);

  // Memory that ends right after the text: the piece that would run past it falls back to bytes.
  const auto end = reinterpret_cast<std::uintptr_t>(text) + std::strlen(text) + 1;
  const auto bounded = [&](void* dst, const void* src, std::size_t bytes) {
    if (reinterpret_cast<std::uintptr_t>(src) + bytes > end) return false;
    std::memcpy(dst, src, bytes);
    return true;
  };
  REQUIRE(cuguard::detail::backend::read_text_in_pieces(reinterpret_cast<std::uint64_t>(text), out, bounded));
  CHECK(std::string(out.c_str()) == text);

  // Memory that cannot be read (a lost context) gives no text.
  const auto fail = [](void*, const void*, std::size_t) { return false; };
  CHECK_FALSE(cuguard::detail::backend::read_text_in_pieces(reinterpret_cast<std::uint64_t>(text), out, fail));
}
