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

/// Before a block barrier opens: did every thread that has not stopped reach this one? The first
/// time one did not (`returned`: a thread that returned since the last barrier, -1: none) is
/// written to `problem`.
inline void note_divergence(const fiber* fibers, unsigned threads, int returned, barrier_problem& problem) {
  if (problem.found) return;
  unsigned first = 0;
  while (fibers[first].st != fiber_state::at_barrier) ++first;
  const barrier_site& site = fibers[first].site;
  int other = returned;
  for (unsigned t = first + 1; other < 0 && t < threads; ++t)
    if (fibers[t].st == fiber_state::at_barrier && (fibers[t].site.line != site.line || fibers[t].site.file != site.file))
      other = static_cast<int>(t);
  if (other < 0) return;
  const fiber& o = fibers[other];
  problem = {true,    fibers[first].ids.block_idx,
             fibers[first].ids.thread_idx, site,
             o.ids.thread_idx, other == returned ? barrier_site{"", "", 0} : o.site};
}

/// Opens the block barrier when every live thread of `fibers` waits at it, else each warp
/// barrier whose live lanes all wait at it, telling `races` what opened. False when no thread is
/// live; throws std::logic_error when threads wait and none can go on (a deadlock).
inline bool release_barriers(fiber* fibers, unsigned threads, int& returned, barrier_problem& problem,
                             race_detector& races) {
  bool live = false, all_at_barrier = true, released = false;
  for (unsigned t = 0; t < threads; ++t) {
    if (fibers[t].st == fiber_state::done) continue;
    live = true;
    if (fibers[t].st != fiber_state::at_barrier) all_at_barrier = false;
  }
  if (!live) return false;
  if (all_at_barrier) {
    note_divergence(fibers, threads, returned, problem);
    races.block_barrier();
    returned = -1;
    for (unsigned t = 0; t < threads; ++t)
      if (fibers[t].st == fiber_state::at_barrier) fibers[t].st = fiber_state::ready;
    return true;
  }
  for (unsigned base = 0; base < threads; base += 32) {
    bool any = false, all = true;
    for (unsigned t = base; t < base + 32 && t < threads; ++t) {
      if (fibers[t].st == fiber_state::done) continue;
      any = true;
      if (fibers[t].st != fiber_state::at_warp_barrier) all = false;
    }
    if (!any || !all) continue;
    for (unsigned t = base; t < base + 32 && t < threads; ++t)
      if (fibers[t].st == fiber_state::at_warp_barrier) fibers[t].st = fiber_state::ready;
    races.warp_barrier(base / 32);
    released = true;
  }
  if (!released)
    throw std::logic_error("cuguard emulation: deadlock: threads of one block wait at different barriers "
                           "(__syncthreads() and a warp-wide operation), which a GPU would not complete either");
  return true;
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
