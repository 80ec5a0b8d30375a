// SPDX-License-Identifier: Apache-2.0
// Warp-synchronous calls under emulation honour their masks, as compute-sanitizer's synccheck
// checks them on a GPU: a lane outside its own mask, and a mask whose lanes wait at another
// barrier, are reported (and the kernel goes on); lanes of disjoint masks synchronize apart; a
// correct kernel is silent under every schedule. Emulation only: on a GPU, synccheck is the tool.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#if CUGUARD_IMPL_EMULATION

namespace synccheck_tests {
inline unsigned sync_line = 0;

// The first `callers` lanes store their number in a raw __shared__ array and meet at a
// __syncwarp() whose mask is the first 16 lanes'; lane 0 then sums them. With 17 callers, lane 16
// calls with a mask that leaves it out.
__global__ void half_warp_sum(cuguard::checked_view<int, 1> out, int callers) {
  __shared__ int cells[32];
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned mask = __ballot_sync(0xffffffffu, lane < 16);
  if (lane < callers) {
    cells[lane] = lane;
    sync_line = __LINE__; __syncwarp(mask);
    if (lane == 0) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += cells[i];
      out(0) = sum;
    }
  }
  __syncthreads();
}

// Each half of the warp reduces its own values with __shfl_down_sync over its own mask, in a
// branch of its own: two groups that synchronize apart.
__global__ void halves(cuguard::checked_view<int, 1> out) {
  const int lane = static_cast<int>(threadIdx.x);
  int v = lane + 1;
  if (lane < 16) {
    for (unsigned d = 8; d > 0; d /= 2) v += __shfl_down_sync(0x0000ffffu, v, d, 16);
    __syncwarp(0x0000ffffu);
  } else {
    for (unsigned d = 8; d > 0; d /= 2) v += __shfl_down_sync(0xffff0000u, v, d, 16);
    __syncwarp(0xffff0000u);
  }
  out(lane) = v;
  out(32 + lane) = static_cast<int>(__ballot_sync(lane < 16 ? 0x0000ffffu : 0xffff0000u, lane % 2 == 0));
}

// The first half waits at a full-mask __syncwarp() while the second waits at __syncthreads():
// the mask names lanes that never call it.
__global__ void full_mask_in_a_branch(cuguard::checked_view<int, 1> out) {
  const int lane = static_cast<int>(threadIdx.x);
  if (lane < 16) {
    sync_line = __LINE__; __syncwarp();
  }
  __syncthreads();
  out(lane) = lane;
}

// A block of 16 threads: a full mask names lanes that do not exist, which nothing waits for.
__global__ void short_block(cuguard::checked_view<int, 1> out) {
  const int lane = static_cast<int>(threadIdx.x);
  int v = lane;
  for (unsigned d = 8; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, static_cast<int>(d));
  __syncwarp();
  out(lane) = v + (__all_sync(0xffffffffu, lane < 16) ? 1000 : 0);
}
} // namespace synccheck_tests

TEST_CASE("a lane calling __syncwarp with a mask that leaves it out is reported; the corrected kernel is not") {
  cuguard::device_buffer<int> out(1, "out");
  cuguard::launch(synccheck_tests::half_warp_sum, 1, 32, out.view(), 17);
  const cuguard_test::caught c = device_test_support::checked();
#  if CUGUARD_IMPL_CHECKS
  REQUIRE(c.thrown);
  const cuguard::violation& v = c.report;
  CHECK(v.kind == cuguard::violation_kind::divergent_barrier);
  CHECK(v.op == cuguard::operation::warp_sync);
  CHECK(v.thread[0] == 16);
  CHECK(v.value == 0x0000ffff);
  CHECK(v.line == synccheck_tests::sync_line);
  CHECK(std::string(v.function) == "half_warp_sum");
  CHECK(c.what.find("invalid warp mask: thread (16,0,0) calls __syncwarp(0x0000ffff) at ") != std::string::npos);
  CHECK(c.what.find(":" + std::to_string(synccheck_tests::sync_line) + ", a mask without its own lane 16") !=
        std::string::npos);
#  else
  CHECK_FALSE(c.thrown); // no report channel with checks off: the kernel ran on
#  endif
  for (const char* order : {"forward", "reverse", "random:5"}) {
    CAPTURE(order);
    device_test_support::under_schedule(order, [&] { cuguard::launch(synccheck_tests::half_warp_sum, 1, 32, out.view(), 16); });
    CHECK_FALSE(device_test_support::checked().thrown);
    CHECK(out.to_host()[0] == 120);
  }
}

TEST_CASE("lanes of disjoint masks synchronize apart, and each group's shuffles and ballots see its own lanes") {
  for (const char* order : {"forward", "reverse", "random:11"}) {
    CAPTURE(order);
    cuguard::device_buffer<int> out(64, "out");
    device_test_support::under_schedule(order, [&] { cuguard::launch(synccheck_tests::halves, 1, 32, out.view()); });
    CHECK_FALSE(device_test_support::checked().thrown);
    const std::vector<int> got = out.to_host();
    CHECK(got[0] == 136);  // 1 + ... + 16
    CHECK(got[16] == 392); // 17 + ... + 32
    CHECK(got[32] == 0x5555);
    CHECK(static_cast<unsigned>(got[48]) == 0x55550000u);
  }
}

TEST_CASE("a full-mask __syncwarp() that half the warp never calls is reported, and the kernel finishes") {
  cuguard::device_buffer<int> out(32, "out");
  cuguard::launch(synccheck_tests::full_mask_in_a_branch, 1, 32, out.view());
  const cuguard_test::caught c = device_test_support::checked();
#  if CUGUARD_IMPL_CHECKS
  REQUIRE(c.thrown);
  CHECK(c.report.op == cuguard::operation::warp_sync);
  CHECK(c.report.line == synccheck_tests::sync_line);
  CHECK(c.report.other_thread[0] >= 16);
  CHECK(c.what.find("divergent warp: thread (") != std::string::npos);
  CHECK(c.what.find(" calls __syncwarp(0xffffffff) at ") != std::string::npos);
  CHECK(c.what.find(" waits at another barrier, at ") != std::string::npos);
#  endif
  const std::vector<int> got = out.to_host();
  for (int i = 0; i < 32; ++i) CHECK(got[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("a full mask in a block of fewer than 32 threads waits only for the lanes that exist") {
  cuguard::device_buffer<int> out(16, "out");
  cuguard::launch(synccheck_tests::short_block, 1, 16, out.view());
  CHECK_FALSE(device_test_support::checked().thrown);
  for (int v : out.to_host()) CHECK(v == 120 + 1000);
}
#endif
