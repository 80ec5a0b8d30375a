// SPDX-License-Identifier: Apache-2.0
// Emulation runs the blocks of a large grid on several OS threads (CUGUARD_EMULATION_THREADS):
// what it reports is what running them one after another reports, whichever thread ran first.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#if CUGUARD_IMPL_EMULATION

namespace parallel_tests {
inline int bad_line = 0;

// Thread 3 of every block from `first_bad` on reads past the end of `in`.
__global__ void late_blocks_fail(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out,
                                 int first_bad) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const bool bad = static_cast<int>(blockIdx.x) >= first_bad && threadIdx.x == 3;
  bad_line = __LINE__; out(i) = in(bad ? in.extent(0) + static_cast<int>(blockIdx.x) : i) + 1;
}

// Blocks from `first_racy` on miss the barrier between a tile's stores and the reads.
__global__ void late_blocks_race(cuguard::checked_view<int, 1> out, int first_racy) {
  __shared__ int storage[64];
  const auto tile = cuguard::make_view(storage, {64}, "tile");
  const int t = static_cast<int>(threadIdx.x);
  tile(t) = t + static_cast<int>(blockIdx.x);
  if (static_cast<int>(blockIdx.x) < first_racy) __syncthreads();
  out(static_cast<int>(blockIdx.x) * 64 + t) = tile(63 - t);
}

// Block 0 throws before any other of its threads runs; every later block reads out of bounds.
__global__ void first_block_throws(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    // Long enough for the other OS threads to run every later block first.
    for (volatile int spin = 0; spin < 20000000; spin = spin + 1) {
    }
    throw std::runtime_error("block 0 gave up");
  }
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  out(i) = in(blockIdx.x > 0 ? in.extent(0) : i);
}

/// Runs `f` with grids on `threads` OS threads.
template <class F>
void on_threads(unsigned threads, F f) {
  unsigned& setting = cuguard::detail::emulation_threads();
  const unsigned before = setting;
  setting = threads;
  f();
  setting = before;
}
} // namespace parallel_tests

TEST_CASE("a grid's blocks on several OS threads compute what they compute one after another") {
  const int blocks = 128, n = blocks * 64;
  cuguard::device_buffer<int> in(n, "in"), out(n, "out");
  std::vector<int> x(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = 3 * i;
  in.copy_from_host(x);
  std::vector<std::vector<int>> got;
  for (unsigned threads : {1u, 2u, 5u}) {
    parallel_tests::on_threads(threads, [&] {
      out.fill_bytes(0);
      cuguard::launch(parallel_tests::late_blocks_fail, blocks, 64, in.view(), out.view(), blocks);
      cuguard::check();
      got.push_back(out.to_host());
    });
  }
  for (int i = 0; i < n; ++i) CHECK(got[0][static_cast<std::size_t>(i)] == 3 * i + 1);
  CHECK(got[1] == got[0]);
  CHECK(got[2] == got[0]);
}

#  if CUGUARD_IMPL_CHECKS
TEST_CASE("on several OS threads the record kept is the lowest failing block's, and every violation counts") {
  const int blocks = 128, first_bad = 37, n = blocks * 64;
  cuguard::device_buffer<int> in(n, "in"), out(n, "out");
  in.fill_bytes(0);
  for (unsigned threads : {1u, 2u, 4u, 4u, 4u, 7u}) {
    CAPTURE(threads);
    parallel_tests::on_threads(threads, [&] {
      cuguard::launch(parallel_tests::late_blocks_fail, blocks, 64, in.view(), out.view(), first_bad);
      const cuguard_test::caught c = device_test_support::checked();
      REQUIRE(c.thrown);
      CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
      CHECK(c.report.block[0] == static_cast<unsigned>(first_bad));
      CHECK(c.report.thread[0] == 3);
      CHECK(c.report.index[0] == n + first_bad);
      CHECK(c.report.line == static_cast<unsigned>(parallel_tests::bad_line));
      CHECK(c.report.count == static_cast<std::uint64_t>(blocks - first_bad)); // one bad thread a block
    });
  }
}

TEST_CASE("on several OS threads the race reported is the lowest racing block's") {
  const int blocks = 96, first_racy = 50;
  cuguard::device_buffer<int> out(blocks * 64, "out");
  for (unsigned threads : {1u, 3u, 3u, 6u}) {
    CAPTURE(threads);
    parallel_tests::on_threads(threads, [&] {
      cuguard::launch(parallel_tests::late_blocks_race, blocks, 64, out.view(), first_racy);
      const cuguard_test::caught c = device_test_support::checked();
      REQUIRE(c.thrown);
      CHECK(c.report.kind == cuguard::violation_kind::shared_race);
      CHECK(c.report.block[0] == static_cast<unsigned>(first_racy));
    });
  }
  // The blocks with the barrier computed their tiles right on every thread count.
  const std::vector<int> got = out.to_host();
  for (int b = 0; b < first_racy; ++b)
    for (int t = 0; t < 64; ++t) CHECK(got[static_cast<std::size_t>(b * 64 + t)] == 63 - t + b);
}
#  endif

TEST_CASE("a block that throws ends the grid's report as it does one block after another") {
  const int blocks = 64, n = blocks * 64;
  cuguard::device_buffer<int> in(n, "in"), out(n, "out");
  in.fill_bytes(0);
  for (unsigned threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    parallel_tests::on_threads(threads, [&] {
      std::string error;
      try {
        cuguard::launch(parallel_tests::first_block_throws, blocks, 64, in.view(), out.view());
      } catch (const cuguard::cuda_error& e) {
        error = e.what();
      }
      CHECK(error.find("block 0 gave up") != std::string::npos);
      // The blocks after block 0 would not have run: what they recorded is not reported.
      CHECK(!device_test_support::checked().thrown);
    });
  }
}

TEST_CASE("a CUGUARD_EMULATION_THREADS that cannot be read is refused with what it expects") {
  for (const char* bad : {"0", "-2", "two", "3x", "100000"}) {
    CAPTURE(bad);
    bool thrown = false;
    try {
      (void)cuguard::detail::threads_from_text(bad);
    } catch (const std::invalid_argument& e) {
      thrown = true;
      CHECK(std::string(e.what()).find("expected a number of threads from 1 to 1024") != std::string::npos);
    }
    CHECK(thrown);
  }
  CHECK(cuguard::detail::threads_from_text("3") == 3);
  CHECK(cuguard::detail::threads_from_text(nullptr) >= 1);
}

#endif
