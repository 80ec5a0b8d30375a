// SPDX-License-Identifier: Apache-2.0
// The lifetime token a view carries (the type: detail/record/facts.hpp), the table of generations
// it is checked against, and alive().
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/record/facts.hpp>

#include <cstdint>

#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE

namespace detail {

inline constexpr std::uint32_t lifetime_slots = CUGUARD_IMPL_LIFETIME_SLOTS;
static_assert(lifetime_slots >= 2, "CUGUARD_LIFETIME_SLOTS must be at least 2");

/// Current generation of each slot (the registry, detail/runtime/lifetime_registry.hpp, bumps
/// them); read on every checked host access through a tracked view, so it is read and written with relaxed atomic
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
  // One asm without side effects gives the whole answer (1: alive), so the compiler may compute
  // it once per kernel or loop and share it between accesses; the load goes through the
  // non-coherent path. The table changes only between kernels of a stream (the runtime writes it
  // in stream order), so a release before the launch is always seen; one during the kernel may
  // not be. No branch: without a table, or for slot 0 ("not tracked"), nothing is loaded and the
  // answer is 1; where the slot is known to be 0 (views made in the kernel) ptxas folds it all.
  // (A branch on the table, or a compare outside the asm, was remade at every access of a
  // large loop: bench/static/user_kernels.py.)
  const std::uint32_t* generations = current_device_state<Token>().generations;
  std::uint32_t ok;
  asm("{\n\t.reg .pred p, q;\n\t.reg .b32 g;\n\tsetp.ne.u64 p, %1, 0;\n\tmov.u32 g, %3;\n\t"
      "@p ld.global.nc.u32 g, [%2];\n\tsetp.eq.u32 q, g, %3;\n\tselp.u32 %0, 1, 0, q;\n\t}"
      : "=r"(ok)
      : "l"(t.slot == 0 ? nullptr : generations), "l"(generations + t.slot), "r"(t.generation));
  return ok != 0;
#elif CUGUARD_IMPL_DEVICE_PASS
  (void)t;
  return true;
#else
  // No branch on slot 0 ("not tracked"): its generation stays 0, as an untracked token's does.
  return generation_of(t.slot) == t.generation;
#endif
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
