// SPDX-License-Identifier: Apache-2.0
// grid_runner's warp-wide operations, defined: the warp barrier, shuffles, ballots, the gather
// of every lane's word (cooperative groups' reduce and scan), coalesced_threads()'s wait for the
// lanes that run a call together, and the barrier and gather of a tile of several warps.
#pragma once
// Part of <cuguard/detail/emulation/grid_runner.hpp>, which includes it after the class.

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

inline void grid_runner::warp_barrier(const warp_call& call) {
  fibers_in_order();
  if (warp_lanes::arrive(fibers_.data(), current_, call, block_ids_.block_idx, warp_problem_))
    wait(fiber_state::at_warp_barrier);
}

inline std::uint64_t grid_runner::exchange(std::uint64_t bits, unsigned src_lane, const warp_call& call) {
  fibers_in_order();
  return lanes_.exchange(fibers_.data(), threads_, current_, bits, src_lane, call.mask, [&] { warp_barrier(call); });
}

inline unsigned grid_runner::ballot(bool predicate, const warp_call& call, unsigned* voters) {
  fibers_in_order();
  return lanes_.ballot(fibers_.data(), threads_, current_, predicate, call.mask, [&] { warp_barrier(call); }, voters);
}

template <class Read>
void grid_runner::gather(std::uint64_t bits, const warp_call& call, Read&& read) {
  fibers_in_order();
  lanes_.gather(fibers_.data(), threads_, current_, bits, call.mask, [&] { warp_barrier(call); }, read);
}

// The thread waits as at a warp barrier of mask 0, with converge_call for its call: release_warp
// opens it, once nothing else can run, with the mask of the lanes waiting at the same site.
inline unsigned grid_runner::converge(const barrier_site& site) {
  fibers_in_order();
  fiber& f = fibers_[current_];
  f.mask = 0;
  f.site = site;
  f.call = converge_call;
  wait(fiber_state::at_warp_barrier);
  return fibers_[current_].mask;
}

inline void grid_runner::tile_barrier(unsigned span, const barrier_site& site) {
  fibers_in_order();
  fiber& f = fibers_[current_];
  f.mask = span;
  f.site = site;
  f.call = tile_call;
  wait(fiber_state::at_warp_barrier);
}

template <class Read>
void grid_runner::tile_gather(std::uint64_t bits, unsigned span, const barrier_site& site, Read&& read) {
  fibers_in_order();
  lanes_.tile_gather(fibers_.data(), threads_, current_, bits, span, [&] { tile_barrier(span, site); }, read);
}

inline unsigned grid_runner::active_mask() {
  fibers_in_order();
  return warp_lanes::active_mask(fibers_.data(), threads_, current_);
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
