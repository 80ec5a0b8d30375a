// SPDX-License-Identifier: Apache-2.0
// Warp-wide exchanges of a block's threads under emulation (shuffles, ballots, the active mask):
// every lane deposits a word, the warp waits, each lane reads what it asked for.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/barriers.hpp>
#include <cuguard/detail/emulation/fiber.hpp>

#include <cstdint>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// One word a thread of the running block, for the exchanges of its warp. `wait` (what the
/// runner does at __syncwarp()) returns when every live lane of the warp deposited.
class warp_lanes {
 public:
  void reserve(std::size_t threads) {
    if (words_.size() < threads) words_.resize(threads);
  }

  /// Thread `t` exchanges `bits` with the lanes of `mask` and gets lane `src_lane`'s (its own
  /// where that lane is not in the mask, does not exist or exited: a GPU leaves it undefined).
  template <class Wait>
  std::uint64_t exchange(const fiber* fibers, unsigned threads, unsigned t, std::uint64_t bits, unsigned src_lane,
                         unsigned mask, Wait&& wait) {
    words_[t] = bits;
    wait();
    const unsigned src = warp_base(t) + (src_lane % 32);
    const bool named = (mask >> (src_lane % 32) & 1u) != 0;
    const std::uint64_t out = named && src < threads && fibers[src].st != fiber_state::done ? words_[src] : bits;
    wait();
    return out;
  }

  /// The ballot of the lanes of `mask` in thread `t`'s warp: bit l set where live lane l's
  /// predicate holds; `voters`, where given, gets the live lanes of the mask that voted.
  template <class Wait>
  unsigned ballot(const fiber* fibers, unsigned threads, unsigned t, bool predicate, unsigned mask, Wait&& wait,
                  unsigned* voters = nullptr) {
    words_[t] = predicate ? 1 : 0;
    wait();
    unsigned votes = 0, live = 0;
    const unsigned base = warp_base(t);
    for (unsigned l = 0; l < 32 && base + l < threads; ++l) {
      if ((mask >> l & 1u) == 0 || fibers[base + l].st == fiber_state::done) continue;
      live |= 1u << l;
      if (words_[base + l] != 0) votes |= 1u << l;
    }
    if (voters != nullptr) *voters = live;
    wait();
    return votes;
  }

  /// Thread `t` deposits `bits` with the lanes of `mask`; once all did, `read(live, words)` reads
  /// the words of its warp (lane l's at words[l]) of the lanes `live` names: those of the mask
  /// that exist and have not exited.
  template <class Wait, class Read>
  void gather(const fiber* fibers, unsigned threads, unsigned t, std::uint64_t bits, unsigned mask, Wait&& wait,
              Read&& read) {
    words_[t] = bits;
    wait();
    read(active_mask(fibers, threads, t) & mask, words_.data() + warp_base(t));
    wait();
  }

  /// gather() for the tile of `span` threads that thread `t` is in: `read(k, word)` for each of
  /// its threads k (rank in the tile) that exists and has not exited.
  template <class Wait, class Read>
  void tile_gather(const fiber* fibers, unsigned threads, unsigned t, std::uint64_t bits, unsigned span, Wait&& wait,
                   Read&& read) {
    words_[t] = bits;
    wait();
    const unsigned base = t - t % span;
    for (unsigned k = base; k < base + span && k < threads; ++k)
      if (fibers[k].st != fiber_state::done) read(k - base, words_[k]);
    wait();
  }

  /// Thread `t` makes the warp-synchronous call `call` (its mask, site and name, kept for the
  /// barrier): true where it then waits, false where it waits for nothing, since its own lane is
  /// not in the mask (noted in `problem`, with the block's blockIdx `block`).
  static bool arrive(fiber* fibers, unsigned t, const warp_call& call, uint3 block, warp_problem& problem) {
    fiber& f = fibers[t];
    f.mask = call.mask;
    f.site = call.site;
    f.call = call.name;
    if ((call.mask >> (t % 32) & 1u) != 0) return true;
    note_warp_problem(problem, warp_problem::what::lane_outside_mask, block, f, f);
    return false;
  }

  /// The lanes of thread `t`'s warp that have not exited.
  static unsigned active_mask(const fiber* fibers, unsigned threads, unsigned t) noexcept {
    unsigned mask = 0;
    const unsigned base = warp_base(t);
    for (unsigned l = 0; l < 32 && base + l < threads; ++l)
      if (fibers[base + l].st != fiber_state::done) mask |= 1u << l;
    return mask;
  }

 private:
  static unsigned warp_base(unsigned t) noexcept { return t - t % 32; }
  std::vector<std::uint64_t> words_;
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
