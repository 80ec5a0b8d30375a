// SPDX-License-Identifier: Apache-2.0
// The order in which the threads of a block run between two barriers (CUGUARD_EMULATION_SCHEDULE).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/environment.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// The order in which the threads of a block run between two barriers
/// (CUGUARD_EMULATION_SCHEDULE): forward (thread order, the default), reverse, or a permutation
/// drawn anew at every barrier from a seed (random:<seed>), the same in every run. A kernel that
/// misses a __syncthreads() computes differently under two schedules.
struct schedule {
  enum class order { forward, reverse, random } kind = order::forward;
  std::uint64_t seed = 0;

  /// The schedule the environment asks for; throws std::invalid_argument for a value it cannot read.
  static schedule from_text(const char* s) {
    schedule out;
    if (s == nullptr || *s == '\0' || std::strcmp(s, "forward") == 0) return out;
    if (std::strcmp(s, "reverse") == 0) {
      out.kind = order::reverse;
      return out;
    }
    if (std::strncmp(s, "random:", 7) == 0 && s[7] != '\0') {
      char* end = nullptr;
      out.seed = std::strtoull(s + 7, &end, 10);
      if (end != nullptr && *end == '\0') {
        out.kind = order::random;
        return out;
      }
    }
    throw std::invalid_argument(std::string("cuguard emulation: CUGUARD_EMULATION_SCHEDULE is '") + s +
                                "'; expected forward, reverse or random:<seed> (a decimal number)");
  }

  /// The first state of block `block` (its number in x-fastest order) for the draws of order().
  std::uint64_t first_draw(std::uint64_t block) const noexcept { return seed ^ (0x9e3779b97f4a7c15ull * (1 + block)); }

  /// The order of the next pass over `threads` threads, written to `out`; a random schedule
  /// draws it from `draw` (Fisher-Yates with splitmix64 draws) and advances it.
  void order_threads(unsigned* out, unsigned threads, std::uint64_t& draw) const noexcept {
    for (unsigned i = 0; i < threads; ++i) out[i] = kind == order::reverse ? threads - 1 - i : i;
    if (kind != order::random) return;
    for (unsigned i = threads; i > 1; --i) {
      std::uint64_t z = (draw += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      const unsigned j = static_cast<unsigned>(z % i);
      const unsigned tmp = out[i - 1];
      out[i - 1] = out[j];
      out[j] = tmp;
    }
  }
};

/// The schedule of every grid this process runs: CUGUARD_EMULATION_SCHEDULE's, read at the
/// first launch (tests assign it).
inline schedule& active_schedule() {
  static schedule s = schedule::from_text(
      platform::environment(platform::setting::emulation_schedule));
  return s;
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
