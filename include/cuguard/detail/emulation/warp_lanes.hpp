// SPDX-License-Identifier: Apache-2.0
// Warp-wide exchanges of a block's threads under emulation (shuffles, ballots, the active mask):
// every lane deposits a word, the warp waits, each lane reads what it asked for.
#pragma once

#include <cuguard/config.hpp>
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

  /// Thread `t` exchanges `bits` across its warp and gets lane `src_lane`'s (its own where that
  /// lane does not exist or exited).
  template <class Wait>
  std::uint64_t exchange(const fiber* fibers, unsigned threads, unsigned t, std::uint64_t bits, unsigned src_lane,
                         Wait&& wait) {
    words_[t] = bits;
    wait();
    const unsigned src = warp_base(t) + (src_lane % 32);
    const std::uint64_t out = src < threads && fibers[src].st != fiber_state::done ? words_[src] : bits;
    wait();
    return out;
  }

  /// The ballot of thread `t`'s warp: bit l set where live lane l's predicate holds.
  template <class Wait>
  unsigned ballot(const fiber* fibers, unsigned threads, unsigned t, bool predicate, Wait&& wait) {
    words_[t] = predicate ? 1 : 0;
    wait();
    unsigned mask = 0;
    const unsigned base = warp_base(t);
    for (unsigned l = 0; l < 32 && base + l < threads; ++l)
      if (fibers[base + l].st != fiber_state::done && words_[base + l] != 0) mask |= 1u << l;
    wait();
    return mask;
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
