// SPDX-License-Identifier: Apache-2.0
// Barrier bugs that a GPU hides, found by emulation: a __syncthreads() that not every thread of
// the block reaches (a thread returned first, or waits at another __syncthreads()) is reported
// as divergent_barrier, and the block goes on instead of hanging. Emulation only: on a GPU these
// kernels are undefined behaviour.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#if CUGUARD_IMPL_EMULATION

namespace barrier_tests {
// The lines of the barriers, as the kernels see them (every thread writes the same number).
inline int wait_line = 0, else_line = 0;

// Threads at or past `n` return before the barrier that the others wait at.
__global__ void early_return(cuguard::checked_view<int, 1> out, int n) {
  __shared__ int tile[64];
  const int i = static_cast<int>(threadIdx.x);
  if (i >= n) return;
  tile[i] = i;
  wait_line = __LINE__; __syncthreads();
  out[i] = tile[(i + 1) % n];
}

// The first `n` threads return before any other thread waits (or asks which lanes are live).
__global__ void returned_first(cuguard::checked_view<int, 1> out, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) return;
  out[i] = static_cast<int>(__activemask()); // the lanes of its warp that have not returned
  wait_line = __LINE__; __syncthreads();
  out[i] += 1;
}

// Two halves of the block wait at two different barriers (a GPU counts them as one).
__global__ void split_barrier(cuguard::checked_view<int, 1> out) {
  __shared__ int tile[64];
  tile[threadIdx.x] = static_cast<int>(threadIdx.x);
  if (threadIdx.x < 32) {
    wait_line = __LINE__; __syncthreads();
  } else {
    else_line = __LINE__; __syncthreads();
  }
  out[threadIdx.x] = tile[63 - threadIdx.x];
}

// Thread 5 reads out of bounds before the barrier and stops there; the others wait.
__global__ void violation_before_barrier(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out) {
  __shared__ int tile[64];
  const int i = static_cast<int>(threadIdx.x);
  tile[i] = in[i == 5 ? 64 : i];
  __syncthreads();
  out[i] = tile[63 - i];
}
} // namespace barrier_tests

TEST_CASE("a __syncthreads() that a returned thread never reached is reported, and the block goes on") {
  cuguard::device_buffer<int> out(64, "out");
  out.fill_bytes(0);
  cuguard::launch(barrier_tests::early_return, 1, 64, out.view(), 48);
  const cuguard_test::caught c = device_test_support::checked();
#  if CUGUARD_IMPL_CHECKS
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.kind == cuguard::violation_kind::divergent_barrier);
  CHECK(v.op == cuguard::operation::barrier);
  CHECK(v.line == static_cast<unsigned>(barrier_tests::wait_line));
  CHECK(std::string(v.function) == "early_return");
  CHECK(v.thread[0] == 0);
  CHECK(v.other_thread[0] == 48);
  CHECK(v.other_site.line == 0);
  CHECK(v.count == 1);
  CHECK(c.what.find("divergent barrier: thread (0,0,0) waits at __syncthreads() at ") != std::string::npos);
  CHECK(c.what.find(", thread (48,0,0) returned without reaching it") != std::string::npos);
  CHECK(c.what.find("of launch #") != std::string::npos);
#  else
  CHECK(!c.thrown); // checks off: nothing is recorded
#  endif
  // The waiting threads went on past the barrier.
  const std::vector<int> got = out.to_host();
  for (int i = 0; i < 48; ++i) CHECK(got[static_cast<std::size_t>(i)] == (i + 1) % 48);

  // Every thread reaching the barrier: nothing to report.
  cuguard::launch(barrier_tests::early_return, 1, 64, out.view(), 64);
  CHECK(!device_test_support::checked().thrown);
}

TEST_CASE("threads that returned before any other waited are known to the barrier and to __activemask()") {
  cuguard::device_buffer<int> out(64, "out");
  out.fill_bytes(0);
  // In thread order (fixed here: in another, lanes 0-15 may not have run when thread 16 asks).
  device_test_support::under_schedule("forward", [&] { cuguard::launch(barrier_tests::returned_first, 1, 64, out.view(), 16); });
  const cuguard_test::caught c = device_test_support::checked();
#  if CUGUARD_IMPL_CHECKS
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::divergent_barrier);
  CHECK(c.report.line == static_cast<unsigned>(barrier_tests::wait_line));
  CHECK(c.report.thread[0] == 16);      // the first thread that waits
  CHECK(c.report.other_thread[0] == 0); // the lowest thread that returned
  CHECK(c.what.find(", thread (0,0,0) returned without reaching it") != std::string::npos);
#  else
  CHECK(!c.thrown);
#  endif
  const std::vector<int> got = out.to_host();
  CHECK(got[0] == 0); // returned: never written
  const unsigned live16 = static_cast<unsigned>(got[16]) - 1u, live63 = static_cast<unsigned>(got[63]) - 1u;
  CHECK(live16 == 0xffff0000u); // lanes 0-15 returned before thread 16 ran; then past the barrier
  CHECK(live63 == 0xffffffffu); // the second warp: every lane live

  cuguard::launch(barrier_tests::returned_first, 1, 64, out.view(), 0); // nobody returns first
  CHECK(!device_test_support::checked().thrown);
}

TEST_CASE("threads waiting at two different __syncthreads() are a divergent barrier") {
  cuguard::device_buffer<int> out(64, "out");
  cuguard::launch(barrier_tests::split_barrier, 2, 64, out.view());
  const cuguard_test::caught c = device_test_support::checked();
#  if CUGUARD_IMPL_CHECKS
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::divergent_barrier);
  CHECK(c.report.line == static_cast<unsigned>(barrier_tests::wait_line));
  CHECK(c.report.block[0] == 0);
  CHECK(c.report.other_thread[0] == 32);
  CHECK(c.report.other_site.line == static_cast<unsigned>(barrier_tests::else_line));
  CHECK(c.what.find(", thread (32,0,0) waits at the one at ") != std::string::npos);
  CHECK(c.report.count == 1); // the first of the grid is recorded, once
#  else
  CHECK(!c.thrown);
#  endif
  const std::vector<int> got = out.to_host();
  CHECK(got[0] == 63); // the block went on
}

#  if CUGUARD_IMPL_CHECKS && !CUGUARD_IMPL_DEVICE_CONTINUE
TEST_CASE("a thread stopped at a violation before a barrier is reported for its violation alone") {
  cuguard::device_buffer<int> in(64, "in"), out(64, "out");
  in.fill_bytes(0);
  cuguard::launch(barrier_tests::violation_before_barrier, 1, 64, in.view(), out.view());
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(c.report.thread[0] == 5);
  CHECK(c.report.count == 1);
}
#  endif

#endif

#if CUGUARD_IMPL_EMULATION
namespace barrier_tests {
// Each thread writes its element of the tile, then reads its neighbour's: without the barrier
// between the two (`synced` false) what it reads depends on the order the threads ran in.
__global__ void neighbour(cuguard::checked_view<int, 1> out, int stamp, bool synced) {
  __shared__ int tile[64];
  const int i = static_cast<int>(threadIdx.x);
  tile[i] = stamp + i;
  if (synced) __syncthreads();
  out[i] = tile[(i + 1) % 64];
}

/// Runs neighbour under `order` (twice: the tile is left holding the first run's values).
std::vector<int> neighbour_under(const char* order, bool synced) {
  cuguard::device_buffer<int> out(64, "out");
  device_test_support::under_schedule(order, [&] {
    cuguard::launch(neighbour, 1, 64, out.view(), 1000, synced);
    cuguard::launch(neighbour, 1, 64, out.view(), 2000, synced);
  });
  cuguard::check();
  return out.to_host();
}
} // namespace barrier_tests

TEST_CASE("CUGUARD_EMULATION_SCHEDULE orders a block's threads: a missing __syncthreads() shows") {
  using barrier_tests::neighbour_under;
  const std::vector<int> forward = neighbour_under("forward", false), reverse = neighbour_under("reverse", false),
                         shuffled = neighbour_under("random:7", false);
  // Forward: thread i runs before thread i + 1 writes, and reads the first run's value.
  CHECK(forward[0] == 1001);
  CHECK(forward[63] == 2000);
  // Reverse: thread i + 1 wrote already; thread 63 reads element 0 before thread 0 writes it.
  CHECK(reverse[0] == 2001);
  CHECK(reverse[63] == 1000);
  CHECK(forward != reverse);
  CHECK(shuffled != forward);
  CHECK(shuffled == neighbour_under("random:7", false)); // the same seed, the same order
  // With the barrier, every schedule computes the same.
  const std::vector<int> right = neighbour_under("forward", true);
  for (int i = 0; i < 64; ++i) CHECK(right[static_cast<std::size_t>(i)] == 2000 + (i + 1) % 64);
  CHECK(neighbour_under("reverse", true) == right);
  CHECK(neighbour_under("random:12345", true) == right);
}

namespace barrier_tests {
// Each thread adds up what another thread of its block stored, over `rounds` rounds: a barrier
// after each store and after each read, every thread of the block at every one. Each wait hands
// over to the next thread of the pass, which in the first pass starts on a stack of its own.
__global__ void rounds_of_reads(cuguard::checked_view<int, 1> out, int rounds) {
  __shared__ int tile[1024];
  const int n = static_cast<int>(blockDim.x), i = static_cast<int>(threadIdx.x), b = static_cast<int>(blockIdx.x);
  int sum = 0;
  for (int r = 0; r < rounds; ++r) {
    tile[i] = r * 10000 + b * 1000 + i;
    __syncthreads();
    sum += tile[(i + r + 1) % n];
    __syncthreads();
  }
  out[b * n + i] = sum;
}
} // namespace barrier_tests

TEST_CASE("every thread of a block of any size waits at every barrier: the same sums in every schedule") {
  constexpr int blocks = 3, rounds = 4;
  for (const int n : {1, 2, 33, 256, 1024}) {
    cuguard::device_buffer<int> out(static_cast<std::size_t>(blocks * n), "out");
    for (const char* order : {"forward", "reverse", "random:3"}) {
      CAPTURE(n);
      CAPTURE(order);
      out.fill_bytes(0);
      device_test_support::under_schedule(order, [&] {
        cuguard::launch(barrier_tests::rounds_of_reads, blocks, n, out.view(), rounds);
        cuguard::launch(barrier_tests::rounds_of_reads, blocks, n, out.view(), rounds); // the runner's stacks again
      });
      cuguard::check();
      const std::vector<int> got = out.to_host();
      int wrong = 0;
      for (int b = 0; b < blocks; ++b)
        for (int i = 0; i < n; ++i) {
          int expected = 0;
          for (int r = 0; r < rounds; ++r) expected += r * 10000 + b * 1000 + (i + r + 1) % n;
          wrong += got[static_cast<std::size_t>(b * n + i)] != expected;
        }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("a CUGUARD_EMULATION_SCHEDULE that cannot be read is refused with what it expects") {
  namespace emu = cuguard::detail::engine;
  for (const char* bad : {"backwards", "random:", "random:12x", "random"}) {
    CAPTURE(bad);
    bool thrown = false;
    try {
      (void)emu::schedule::from_text(bad);
    } catch (const std::invalid_argument& e) {
      thrown = true;
      CHECK(std::string(e.what()).find("expected forward, reverse or random:<seed>") != std::string::npos);
    }
    CHECK(thrown);
  }
  CHECK(emu::schedule::from_text(nullptr).kind == emu::schedule::order::forward);
  CHECK(emu::schedule::from_text("random:42").seed == 42);
}
#endif
