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

#if CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS
/// Device code: 1 if the allocation behind a token is alive by the device copy of the
/// generations (updated in stream order by the runtime), else 0. One asm without side effects
/// gives the whole answer, so the compiler may compute it once per kernel or loop and share it
/// between accesses; the load goes through the non-coherent path. The table changes only between
/// kernels of a stream, so a release before the launch is always seen; one during the kernel may
/// not be. No branch: without a table, or for slot 0 ("not tracked"), nothing is loaded and the
/// answer is 1; where the slot is known to be 0 (views made in the kernel) ptxas folds it all.
/// (A branch on the table, or a compare outside the asm, was remade at every access of a large
/// loop: bench/static/user_kernels.py.)
///
/// Two forms of the same instructions, which the compiler moves out of loops in different
/// kernels (tests/static/budgets.json holds both): `SlotAddressInAsm` forms the slot's address in
/// the asm, from operands known at the kernel's start (the table, the slot, the generation):
/// views' checks leave more loops this way (hot path checks on / off, geometric mean over
/// tests/static's 22 kernels, 1.654x -> 1.593x, and index_select<4> 36 -> 28 registers);
/// cuguard::ptr's checks leave more loops with the address formed outside (pointers:rows 22
/// instructions a row element, 26 with it inside).
template <bool SlotAddressInAsm>
__device__ CUGUARD_IMPL_FORCEINLINE bool alive_by_table(const std::uint32_t* generations, std::uint32_t slot,
                                                        std::uint32_t generation) noexcept {
  std::uint32_t ok;
  if constexpr (SlotAddressInAsm) {
    asm("{\n\t.reg .pred p, q;\n\t.reg .b32 g;\n\t.reg .b64 a;\n\tsetp.ne.u64 p, %1, 0;\n\t"
        "setp.ne.and.u32 p, %2, 0, p;\n\tmov.u32 g, %3;\n\tmul.wide.u32 a, %2, 4;\n\tadd.u64 a, a, %1;\n\t"
        "@p ld.global.nc.u32 g, [a];\n\tsetp.eq.u32 q, g, %3;\n\tselp.u32 %0, 1, 0, q;\n\t}"
        : "=r"(ok)
        : "l"(generations), "r"(slot), "r"(generation));
  } else {
    asm("{\n\t.reg .pred p, q;\n\t.reg .b32 g;\n\tsetp.ne.u64 p, %1, 0;\n\tmov.u32 g, %3;\n\t"
        "@p ld.global.nc.u32 g, [%2];\n\tsetp.eq.u32 q, g, %3;\n\tselp.u32 %0, 1, 0, q;\n\t}"
        : "=r"(ok)
        : "l"(slot == 0 ? nullptr : generations), "l"(generations + slot), "r"(generation));
  }
  return ok != 0;
}
#endif

/// True if the allocation behind `t` is still alive (or untracked): in device code by the device
/// table (alive_by_table), on the host by the registry's generations. `SlotAddressInAsm`: the
/// device form (alive_by_table; cuguard::ptr passes false). A template on the token only so that
/// the device state is instantiated where device code checks a lifetime.
template <bool SlotAddressInAsm = true, class Token>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool alive(const Token& t) noexcept {
  static_assert(std::is_same<Token, lifetime_token>::value, "alive() takes a lifetime_token");
#if CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS
  return alive_by_table<SlotAddressInAsm>(current_device_state<Token>().generations, t.slot, t.generation);
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
