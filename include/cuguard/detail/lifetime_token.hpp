// SPDX-License-Identifier: Apache-2.0
// The lifetime token a view carries, the table of generations it is checked against, and alive().
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/device_state.hpp>

#include <cstdint>

#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Identifies one tracked allocation: a slot of the registry and the generation the slot had
/// when the view was made. Slot 0 means "not tracked". Released slots change generation, so a
/// stale token no longer matches.
struct lifetime_token {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
};

namespace detail {

inline constexpr std::uint32_t lifetime_slots = CUGUARD_IMPL_LIFETIME_SLOTS;
static_assert(lifetime_slots >= 2, "CUGUARD_LIFETIME_SLOTS must be at least 2");

/// Current generation of each slot (the registry in lifetime.hpp bumps them); read on every
/// checked host access through a tracked view, so it is read and written with relaxed atomic
/// operations, and takes no lock and no initialization guard (a zero-initialized array, not an
/// array of std::atomic, which compilers initialize at start-up).
inline std::uint32_t lifetime_generations[lifetime_slots];

/// The current generation of `slot` (host code).
inline std::uint32_t generation_of(std::uint32_t slot) noexcept {
  return __atomic_load_n(&lifetime_generations[slot], __ATOMIC_RELAXED);
}

/// Makes every token of `slot` stale; returns the new generation (host code).
inline std::uint32_t next_generation(std::uint32_t slot) noexcept {
  return __atomic_add_fetch(&lifetime_generations[slot], 1u, __ATOMIC_RELAXED);
}

/// True if the allocation behind `t` is still alive (or untracked). Device code reads the
/// device copy of the generations (updated in stream order by the runtime). A template only so
/// that the device state is instantiated where device code checks a lifetime.
template <class Token>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool alive(const Token& t) noexcept {
  static_assert(std::is_same<Token, lifetime_token>::value, "alive() takes a lifetime_token");
#if CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS
  // A read the compiler may hoist out of loops and share between accesses: an asm without side
  // effects, through the non-coherent path. The table changes only between kernels of a stream
  // (the runtime writes it in stream order), so a release before the launch is always seen; one
  // during the kernel may not be. No branch: slot 0 ("not tracked") keeps generation 0, and where
  // the slot is known to be 0 (views made in the kernel) the compiler drops the read.
  const std::uint32_t* generations = current_device_state<Token>().generations;
  if (generations == nullptr) return true;
  std::uint32_t g;
  asm("ld.global.nc.u32 %0, [%1];" : "=r"(g) : "l"(generations + t.slot));
  return (t.slot == 0) | (g == t.generation);
#elif CUGUARD_IMPL_DEVICE_PASS
  (void)t;
  return true;
#else
  return t.slot == 0 || generation_of(t.slot) == t.generation;
#endif
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
