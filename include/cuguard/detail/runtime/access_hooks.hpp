// SPDX-License-Identifier: Apache-2.0
// AddressSanitizer's access callbacks, as cuguard_emulate(... SANITIZE) builds a target: the
// compiler calls __asan_load4_noabort(address) and its kind before every load and store
// (--param asan-instrumentation-with-call-threshold=0) instead of checking inline. cuguard's
// definitions check the access as AddressSanitizer does (and report it through it, at the
// caller's pc), then hand a raw access of an emulated kernel to a `__shared__` variable (listed
// by detail/emulation/shared_variables.hpp) or to the dynamic shared memory to the block's race
// detector, as a view's access is: so races on raw shared arrays are found too; and hand every
// access of a kernel to initcheck (detail/runtime/init_check.hpp) and to the checks of NVTX's
// memory annotations (detail/runtime/nvtx_memory.hpp). The definitions are weak: one per
// program, ahead of the sanitizer runtime's own.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/intrinsics.hpp>
#include <cuguard/detail/emulation/shared_variables.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/runtime/init_check.hpp>
#include <cuguard/detail/runtime/nvtx_injection.hpp> // IWYU pragma: export
#include <cuguard/detail/runtime/nvtx_memory.hpp>
#include <cuguard/detail/runtime/live_memory.hpp>
#if CUGUARD_IMPL_SANITIZE_STORAGES
#  include <cuguard/detail/runtime/conversion_hooks.hpp> // IWYU pragma: export (the float-cast-overflow callbacks)
#endif

#include <cstddef>
#include <cstdint>

#if !CUGUARD_IMPL_SANITIZE_STORAGES
extern "C" void* __asan_region_is_poisoned(void* begin, std::size_t size);
extern "C" void __asan_get_shadow_mapping(std::size_t* scale, std::size_t* offset);
extern "C" void __asan_report_error(void* pc, void* bp, void* sp, void* addr, int is_write, std::size_t size);
extern "C" void __asan_poison_memory_region(const volatile void* addr, std::size_t size);
extern "C" void __asan_unpoison_memory_region(const volatile void* addr, std::size_t size);
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// What the race detector's description of a raw access to shared memory is made from.
struct raw_shared_access {
  const engine::shared_variable* variable; ///< null: the dynamic shared memory
  std::uintptr_t begin;                    ///< of the variable (or the dynamic shared memory)
  std::size_t bytes;                       ///< of the dynamic shared memory
  std::uintptr_t address;
  const void* pc;

  /// The access as a report names it: the variable, the element's index, the caller's pc (its
  /// file and line are looked up where a report needs them).
  static void describe(platform::shared_access& a, const void* context) {
    const raw_shared_access& c = *static_cast<const raw_shared_access*>(context);
    const engine::shared_variable* v = c.variable;
    a.label = v != nullptr ? v->name : "extern __shared__";
    a.type = v != nullptr ? v->type : "uint8";
    a.type_const = v != nullptr && v->type_const;
    a.op = operation::access;
    a.rank = v != nullptr ? v->rank : 1;
    a.width = 0;
    std::int64_t element = static_cast<std::int64_t>((c.address - c.begin) / (v != nullptr ? v->element_bytes : 1));
    for (int r = a.rank - 1; r >= 0; --r) {
      const std::int64_t n = v != nullptr ? v->extent[r] : static_cast<std::int64_t>(c.bytes);
      a.extent[r] = n;
      a.index[r] = r > 0 ? element % n : element;
      element /= n;
    }
    std::int64_t stride = 1;
    for (int r = a.rank - 1; r >= 0; --r) {
      a.stride[r] = stride;
      stride *= a.extent[r];
    }
    a.site = platform::source_site{nullptr, nullptr, 0, c.pc};
  }
};

inline thread_local bool in_access_hook = false;

/// The runtime API's allocations in the guarded arena (guard_blocks, guarded_arena.hpp), as a sanitized
/// build's access hooks are linked: an overrun by a kernel of up to 2 GiB past one is reported
/// before it happens; with AddressSanitizer's runtime, the rest of a block's last page poisoned.
inline bool guard_allocations() noexcept {
#if !CUGUARD_IMPL_SANITIZE_STORAGES
  poison_bytes = &__asan_poison_memory_region;
  unpoison_bytes = &__asan_unpoison_memory_region;
#endif
  guard_blocks.store(true);
  return true;
}
/// (internal linkage: set by every sanitized translation unit's own copy as it loads)
static const bool allocations_guarded = guard_allocations();

#if !CUGUARD_IMPL_SANITIZE_STORAGES
/// True if AddressSanitizer's shadow says some of the `n` bytes at `a` may not be accessed: its
/// check, inline (a shadow byte k of a granule: 0 all of it addressable, 1 to 7 the first k
/// bytes, negative none); __asan_region_is_poisoned gives the first bad byte after.
__attribute__((no_sanitize_address)) inline bool poisoned(std::uintptr_t a, std::size_t n) noexcept {
  // (no guarded static: its initialization's own accesses would come back here)
  static std::size_t scale = 0, offset = 0;
  static bool known = false;
  if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
    __asan_get_shadow_mapping(&scale, &offset);
    __atomic_store_n(&known, true, __ATOMIC_RELEASE);
  }
#if defined(__x86_64__)
  // The shadow of low and high memory only: an address in the shadow or its gap (a wild
  // pointer) has no shadow to read, and __asan_region_is_poisoned tells it apart.
  const std::uintptr_t high_memory = (std::uintptr_t{0x7fffffffffff} >> scale) + offset + 1;
  if (!(a + n <= offset || (a >= high_memory && a + n - 1 <= std::uintptr_t{0x7fffffffffff})))
    return __asan_region_is_poisoned(reinterpret_cast<void*>(a), n) != nullptr;
#else
  return __asan_region_is_poisoned(reinterpret_cast<void*>(a), n) != nullptr;
#endif
  const std::size_t granule = std::size_t{1} << scale;
  for (std::uintptr_t g = a >> scale, last = (a + n - 1) >> scale; g <= last; ++g) {
    const auto k = *reinterpret_cast<const volatile signed char*>(g + offset);
    if (k == 0) continue;
    const std::uintptr_t end = (g << scale) + granule - 1 < a + n - 1 ? granule - 1 : (a + n - 1) & (granule - 1);
    if (k < 0 || end >= static_cast<std::uintptr_t>(k)) return true;
  }
  return false;
}

#endif

/// A load or store of `n` bytes at `p` by the code at `pc` (its frame `bp`): one of an emulated
/// kernel's threads checked against the live memory first (live_memory.hpp: a bad one is reported
/// and stops the thread before it happens), then reported as AddressSanitizer reports a bad one
/// (where its runtime is linked); one to shared memory is noted for the race detector.
__attribute__((no_sanitize_address)) inline void on_access(void* p, std::size_t n, bool write, void* pc, void* bp,
                                                            void* sp) {
  if (engine::hooks_paused != 0) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const bool kernel = engine::current_runner != nullptr && engine::current_thread != nullptr && !in_access_hook;
  // (an atomic's access is at the line of its call)
  const bool atomic = engine::atomic_depth > 0;
  const char* const at = static_cast<const char*>(atomic ? engine::atomic_caller : pc) - 1;
  if (kernel && n != 0 && platform::running != nullptr) {
    in_access_hook = true; // (a bad access stops the thread: the flag is cleared first)
    check_live_access(*platform::running, a, n, write, at, [] { in_access_hook = false; });
    in_access_hook = false;
  }
#if CUGUARD_IMPL_SANITIZE_STORAGES
  (void)bp, (void)sp;
#else
  if (n != 0 && poisoned(a, n))
    if (void* bad = __asan_region_is_poisoned(p, n)) __asan_report_error(pc, bp, sp, bad, write ? 1 : 0, n);
#endif
  if (!kernel) return;
  in_access_hook = true;
  // (plain flags first: this function is not sanitized, so the sanitized functions it calls are
  // not inlined into it, and each of their accesses comes back here)
  if (__atomic_load_n(&shadowing_any, __ATOMIC_ACQUIRE)) shadow_access(a, n, write, at);
  if (__atomic_load_n(&nvtx_active, __ATOMIC_ACQUIRE)) nvtx_access(a, n, write, atomic, at);
  engine::grid_runner& runner = *engine::current_runner;
  raw_shared_access access{nullptr, 0, 0, a, at};
  if (__atomic_load_n(&engine::shared_variables_listed, __ATOMIC_ACQUIRE))
    access.variable = engine::find_shared_variable(a, n, &access.begin);
  const std::uintptr_t dynamic = runner.dynamic_range.begin;
  const std::size_t dynamic_bytes = runner.dynamic_range.bytes;
  if (access.variable == nullptr && a >= dynamic && n <= dynamic_bytes && a - dynamic <= dynamic_bytes - n) {
    access.begin = dynamic;
    access.bytes = dynamic_bytes;
  }
  // (is_shared: the block's thread_local storage, where the variable lies, is found once a grid)
  if (access.bytes != 0 || (access.variable != nullptr && runner.is_shared(p)))
    runner.note_shared(p, n, 1, write ? platform::access_kind::store : platform::access_kind::load,
                       platform::source_site{nullptr, nullptr, 0, at}, &raw_shared_access::describe, &access);
  in_access_hook = false;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// The callbacks, by size (N: any size), with the signatures GCC declares them with; each passes
// its caller's pc and frame.
#define CUGUARD_IMPL_ACCESS_HOOK(name, size, write, ...)                                                    \
  extern "C" __attribute__((weak, noinline, no_sanitize_address)) void name(void* p __VA_ARGS__) {          \
    ::cuguard::detail::emulated_runtime::on_access(p, size, write, __builtin_return_address(0),             \
                                                   __builtin_frame_address(1), __builtin_frame_address(0)); \
  }
#define CUGUARD_IMPL_ACCESS_HOOKS_OF(size)                           \
  CUGUARD_IMPL_ACCESS_HOOK(__asan_load##size##_noabort, size, false) \
  CUGUARD_IMPL_ACCESS_HOOK(__asan_store##size##_noabort, size, true)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wframe-address"
CUGUARD_IMPL_ACCESS_HOOKS_OF(1)
CUGUARD_IMPL_ACCESS_HOOKS_OF(2)
CUGUARD_IMPL_ACCESS_HOOKS_OF(4)
CUGUARD_IMPL_ACCESS_HOOKS_OF(8)
CUGUARD_IMPL_ACCESS_HOOKS_OF(16)
CUGUARD_IMPL_ACCESS_HOOK(__asan_loadN_noabort, static_cast<std::size_t>(n), false, , long n)
CUGUARD_IMPL_ACCESS_HOOK(__asan_storeN_noabort, static_cast<std::size_t>(n), true, , long n)
#pragma GCC diagnostic pop
#undef CUGUARD_IMPL_ACCESS_HOOKS_OF
#undef CUGUARD_IMPL_ACCESS_HOOK

#if CUGUARD_IMPL_SANITIZE_STORAGES
// The rest of what -fsanitize=kernel-address calls, with AddressSanitizer's runtime absent:
// nothing to do (no shadow memory to keep).
extern "C" __attribute__((weak)) void __asan_before_dynamic_init(const char*) {}
extern "C" __attribute__((weak)) void __asan_after_dynamic_init() {}
extern "C" __attribute__((weak)) void __asan_handle_no_return() {}
#endif
