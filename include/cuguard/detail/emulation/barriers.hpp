// SPDX-License-Identifier: Apache-2.0
// Barriers of a block: when __syncthreads() and the warp-wide waits open, and the divergent
// barrier (threads of one block at different __syncthreads(), or one returned) found as they do.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/fiber.hpp>
#include <cuguard/detail/emulation/race_detector.hpp>

#include <stdexcept>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// The first divergent barrier of a grid: a __syncthreads() that a thread of the block waits at
/// while another thread of the block returned from the kernel without reaching it, or waits at
/// another __syncthreads(). A GPU would match the two (or let the block pass once the others
/// exited) or hang; emulation lets the waiting threads go on and reports it.
struct barrier_problem {
  bool found;
  uint3 block;
  uint3 waiting;           ///< a thread that waits at the barrier
  barrier_site site;       ///< the barrier it waits at
  uint3 other;             ///< a thread that returned, or waits elsewhere
  barrier_site other_site; ///< where it waits (line 0: it returned)
};

/// The same __syncthreads() (file and line).
inline bool same_site(const barrier_site& a, const barrier_site& b) noexcept { return a.line == b.line && a.file == b.file; }

/// Before a block barrier opens: did every thread that has not stopped reach this one? The first
/// time one did not (`returned`: a thread that returned since the last barrier, -1: none) is
/// written to `problem`.
inline void note_divergence(const fiber* fibers, unsigned threads, int returned, uint3 block, barrier_problem& problem) {
  if (problem.found) return;
  unsigned first = 0;
  while (fibers[first].st != fiber_state::at_barrier) ++first;
  const barrier_site& site = fibers[first].site;
  int other = returned;
  for (unsigned t = first + 1; other < 0 && t < threads; ++t)
    if (fibers[t].st == fiber_state::at_barrier && !same_site(fibers[t].site, site))
      other = static_cast<int>(t);
  if (other < 0) return;
  const fiber& o = fibers[other];
  problem = {true, block, fibers[first].thread_idx, site, o.thread_idx, other == returned ? barrier_site{"", "", 0} : o.site};
}

/// A warp-synchronous call: the lanes it names, where it is, and which function it is.
struct warp_call {
  unsigned mask;
  barrier_site site;
  const char* name; ///< "__syncwarp", "__shfl_sync", ...
};

/// The call name of a thread waiting in coalesced_threads() (its mask 0 until the release gives it
/// the lanes that wait there with it).
inline constexpr const char converge_call[] = "coalesced_threads";

/// The call name of a thread waiting at the barrier of a tile of several warps (its mask: the
/// tile's size, a power of 2; the tile: the threads from its thread's number rounded down to it).
inline constexpr const char tile_call[] = "thread_block_tile::sync";

/// The first problem of a grid with a warp-synchronous call (__syncwarp(mask), the *_sync
/// intrinsics), as compute-sanitizer's synccheck names them: a lane whose own bit is not in its
/// mask; a lane the mask names that has not exited and never calls with that mask, since it waits
/// at another barrier (a GPU would hang). Emulation lets the lanes go on.
struct warp_problem {
  enum class what : unsigned char { lane_outside_mask, different_barriers };
  bool found;
  what kind;
  uint3 block;
  uint3 waiting;     ///< the lane that calls (or waits)
  barrier_site site; ///< its call
  unsigned mask;     ///< its mask
  const char* call;  ///< the function it calls
  uint3 other;            ///< the lane that waits elsewhere (lane_outside_mask: itself)
  barrier_site other_site; ///< where it waits
};

/// Notes a warp problem of `lane` against `other` in `block` (the first of the grid only).
inline void note_warp_problem(warp_problem& p, warp_problem::what kind, uint3 block, const fiber& lane, const fiber& other) {
  if (p.found) return;
  p = {true, kind, block, lane.thread_idx, lane.site, lane.mask, lane.call, other.thread_idx, other.site};
}

/// The lanes (bits, lane 0 lowest) of the warp whose first thread is `warp[0]` (`lanes` of them)
/// that waiting lane `l`'s mask names and that have not exited: those it waits for. As on a GPU,
/// a lane that returned from the kernel (or that a violation stopped) is not waited for; lanes
/// past the block's last do not exist.
inline unsigned warp_group(const fiber* warp, unsigned lanes, unsigned l) {
  const unsigned named = warp[l].mask & (lanes >= 32 ? ~0u : (1u << lanes) - 1);
  unsigned group = 0;
  for (unsigned k = 0; k < lanes; ++k)
    if ((named >> k & 1u) && warp[k].st != fiber_state::done) group |= 1u << k;
  return group;
}

/// Opens the warp barriers of one warp whose groups are complete: every lane of the group waits
/// at a warp barrier with the same mask. With `force` (nothing else can go on), opens the first
/// waiting lane's group anyway, noting the lane that waits elsewhere. True if one opened.
inline bool release_warp(fiber* warp, unsigned lanes, bool force, uint3 block, warp_problem& problem) {
  for (unsigned l = 0; l < lanes; ++l) {
    if (warp[l].st != fiber_state::at_warp_barrier || warp[l].call == tile_call) continue;
    if (warp[l].call == converge_call) {
      // No thread of the block can go on: the lanes at this coalesced_threads() are those a GPU
      // runs there together. Each gets their mask.
      unsigned group = 0;
      for (unsigned k = 0; k < lanes; ++k)
        if (warp[k].st == fiber_state::at_warp_barrier && warp[k].call == converge_call && same_site(warp[k].site, warp[l].site))
          group |= 1u << k;
      for (unsigned k = 0; k < lanes; ++k)
        if (group >> k & 1u) {
          warp[k].mask = group;
          warp[k].st = fiber_state::ready;
        }
      return true;
    }
    const unsigned group = warp_group(warp, lanes, l);
    int elsewhere = -1;
    for (unsigned k = 0; k < lanes && elsewhere < 0; ++k)
      if ((group >> k & 1u) && (warp[k].st != fiber_state::at_warp_barrier || warp[k].mask != warp[l].mask))
        elsewhere = static_cast<int>(k);
    if (elsewhere >= 0 && !force) continue;
    if (elsewhere >= 0) note_warp_problem(problem, warp_problem::what::different_barriers, block, warp[l], warp[elsewhere]);
    for (unsigned k = 0; k < lanes; ++k)
      if ((group >> k & 1u) && warp[k].st == fiber_state::at_warp_barrier && warp[k].mask == warp[l].mask)
        warp[k].st = fiber_state::ready;
    return true;
  }
  return false;
}

/// Opens the first barrier of a tile of several warps at which every thread of the tile that has
/// not exited waits; with `force`, the first one any thread waits at, noting a thread of the
/// tile that waits elsewhere. True if one opened.
inline bool release_tile(fiber* fibers, unsigned threads, bool force, uint3 block, warp_problem& problem) {
  for (unsigned t = 0; t < threads; ++t) {
    const fiber& f = fibers[t];
    if (f.st != fiber_state::at_warp_barrier || f.call != tile_call) continue;
    const unsigned base = t - t % f.mask, end = base + f.mask < threads ? base + f.mask : threads;
    int elsewhere = -1;
    for (unsigned k = base; k < end && elsewhere < 0; ++k)
      if (fibers[k].st != fiber_state::done &&
          (fibers[k].st != fiber_state::at_warp_barrier || fibers[k].call != tile_call || fibers[k].mask != f.mask))
        elsewhere = static_cast<int>(k);
    if (elsewhere >= 0 && !force) {
      t = end - 1;
      continue;
    }
    if (elsewhere >= 0) note_warp_problem(problem, warp_problem::what::different_barriers, block, f, fibers[elsewhere]);
    for (unsigned k = base; k < end; ++k)
      if (fibers[k].st == fiber_state::at_warp_barrier && fibers[k].call == tile_call && fibers[k].mask == f.mask)
        fibers[k].st = fiber_state::ready;
    return true;
  }
  return false;
}

/// Opens the warp barriers whose groups are complete (release_warp) where the block barrier
/// cannot open (some live thread of `fibers` does not wait at it: the runner opens it when all
/// do), telling `races` what opened; where none can open but lanes wait at a warp barrier, the
/// first such group is opened and the problem noted (a GPU would hang). `block`: the block's
/// blockIdx, for the reports.
inline void release_warp_barriers(fiber* fibers, unsigned threads, uint3 block, warp_problem& warp_found,
                                  race_detector& races) {
  for (const bool force : {false, true}) {
    if (release_tile(fibers, threads, force, block, warp_found)) {
      races.block_barrier(); // (orders the tile's threads, and more: a race across it goes unseen)
      return;
    }
    bool released = false;
    for (unsigned base = 0; base < threads; base += 32) {
      const unsigned lanes = threads - base < 32 ? threads - base : 32;
      if (release_warp(fibers + base, lanes, force, block, warp_found)) {
        races.warp_barrier(base / 32);
        released = true;
        if (force) return; // one forced group at a time: the others may complete now
      }
    }
    if (released) return;
  }
  throw std::logic_error("cuguard emulation: threads of a block wait, and no barrier can open"); // unreachable
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
