// SPDX-License-Identifier: Apache-2.0
// A thread that violates before a warp-synchronous intrinsic or a barrier: the kernel neither
// hangs nor changes what the other threads compute from their own data (a value taken from the
// thread that violated is left out), and the violation is reported.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using cuguard::checked_view;
using device_test_support::checked;

namespace warp_tests {

// Each lane reads in[idx[lane]] and swaps it with its partner (lane ^ 1) through a full-mask
// __shfl_sync.
__global__ void swap_pairs(checked_view<const float, 1> in, checked_view<const std::int64_t, 1> idx,
                           checked_view<float, 1> out) {
  const unsigned lane = threadIdx.x;
  const float v = in(cuguard::index_from(idx, lane)); // warp-test-read
  const float partner = __shfl_sync(0xffffffffu, v, static_cast<int>(lane ^ 1u));
  out(lane) = partner + 100.0f * static_cast<float>(lane);
}

// Each lane reads in[idx[lane]], the warp meets at __syncwarp(), and each lane writes the ballot
// of lanes that read a positive value.
__global__ void ballot_positive(checked_view<const float, 1> in, checked_view<const std::int64_t, 1> idx,
                                checked_view<unsigned, 1> out) {
  const unsigned lane = threadIdx.x;
  const float v = in(cuguard::index_from(idx, lane));
  __syncwarp();
  out(lane) = __ballot_sync(0xffffffffu, v > 0.0f);
}

// Each thread writes in[idx[t]] into a shared tile, the block meets at a barrier, and each thread
// reads its neighbour's entry.
__global__ void shift_through_shared(checked_view<const float, 1> in, checked_view<const std::int64_t, 1> idx,
                                     checked_view<float, 1> out) {
  __shared__ float tile_storage[64];
  const auto tile = cuguard::make_view(tile_storage, {64}, "tile");
  const unsigned t = threadIdx.x;
  tile(t) = in(cuguard::index_from(idx, t));
  __syncthreads();
  out(t) = tile((t + 1) % 64);
}

} // namespace warp_tests

CUGUARD_CHECKED_TEST("a lane that reads out of bounds before a full-mask __shfl_sync: no hang, the other lanes' results hold") {
  std::vector<float> in(32);
  std::vector<std::int64_t> idx(32);
  for (int i = 0; i < 32; ++i) in[static_cast<std::size_t>(i)] = 10.0f * static_cast<float>(i), idx[static_cast<std::size_t>(i)] = i;
  idx[5] = 32; // one past the end
  cuguard::device_buffer<float> d_in(32, "in"), d_out(32, "out");
  cuguard::device_buffer<std::int64_t> d_idx(32, "idx");
  d_in.copy_from_host(in.data(), in.size());
  d_idx.copy_from_host(idx.data(), idx.size());
  d_out.fill_bytes(0);
  cuguard::launch(warp_tests::swap_pairs, 1, 32, d_in.view({32}), d_idx.view({32}), d_out.view({32}));
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(std::string(c.report.label) == "in");
  CHECK(c.report.index[0] == 32);
  CHECK(std::string(c.report.origin_label) == "idx");
  CHECK(c.report.origin_index[0] == 5);
  CHECK(c.report.thread[0] == 5);
  CHECK(c.report.count == 1);
  std::vector<float> out(32);
  d_out.copy_to_host(out.data(), out.size());
  for (int lane = 0; lane < 32; ++lane) {
    // Lane 5 read out of bounds (it stops, or goes on with a scratch value); lane 4 reads lane 5's.
    if (lane == 4 || lane == 5) continue;
    CHECK(out[static_cast<std::size_t>(lane)] == 10.0f * static_cast<float>(lane ^ 1) + 100.0f * static_cast<float>(lane));
  }
}

CUGUARD_CHECKED_TEST("a thread that reads out of bounds before __syncthreads: no hang, the other threads' results hold") {
  std::vector<float> in(64);
  std::vector<std::int64_t> idx(64);
  for (int i = 0; i < 64; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i), idx[static_cast<std::size_t>(i)] = i;
  idx[40] = -1;
  cuguard::device_buffer<float> d_in(64, "in"), d_out(64, "out");
  cuguard::device_buffer<std::int64_t> d_idx(64, "idx");
  d_in.copy_from_host(in.data(), in.size());
  d_idx.copy_from_host(idx.data(), idx.size());
  d_out.fill_bytes(0);
  cuguard::launch(warp_tests::shift_through_shared, 1, 64, d_in.view({64}), d_idx.view({64}), d_out.view({64}));
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(c.report.index[0] == -1);
  CHECK(c.report.thread[0] == 40);
  std::vector<float> out(64);
  d_out.copy_to_host(out.data(), out.size());
  for (int t = 0; t < 64; ++t) {
    if (t == 39 || t == 40) continue; // 40 read out of bounds; 39 reads the entry 40 wrote
    CHECK(out[static_cast<std::size_t>(t)] == static_cast<float>((t + 1) % 64));
  }
}

CUGUARD_CHECKED_TEST("a lane that reads out of bounds before __syncwarp and a full-mask __ballot_sync: no hang, the ballot leaves it out") {
  std::vector<float> in(32);
  std::vector<std::int64_t> idx(32);
  for (int i = 0; i < 32; ++i) in[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i), idx[static_cast<std::size_t>(i)] = i;
  idx[9] = 1000;
  cuguard::device_buffer<float> d_in(32, "in");
  cuguard::device_buffer<std::int64_t> d_idx(32, "idx");
  cuguard::device_buffer<unsigned> d_out(32, "out");
  d_in.copy_from_host(in.data(), in.size());
  d_idx.copy_from_host(idx.data(), idx.size());
  d_out.fill_bytes(0);
  cuguard::launch(warp_tests::ballot_positive, 1, 32, d_in.view({32}), d_idx.view({32}), d_out.view({32}));
  const auto c = checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(c.report.index[0] == 1000);
  CHECK(c.report.thread[0] == 9);
  std::vector<unsigned> out(32);
  d_out.copy_to_host(out.data(), out.size());
  // Lane 9 stopped, so the ballot leaves it out; under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE it
  // votes with the scratch element's value, whatever that is.
  const unsigned others = ~(1u << 9);
  for (int lane = 0; lane < 32; ++lane) {
    if (lane == 9) continue;
    const unsigned ballot = out[static_cast<std::size_t>(lane)];
    CHECK((ballot & others) == others);
    if (cuguard::device_violation_policy == cuguard::device_policy::stop_thread) CHECK(ballot == others);
  }
}
