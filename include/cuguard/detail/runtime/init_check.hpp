// SPDX-License-Identifier: Apache-2.0
// initcheck under emulation, as compute-sanitizer's --tool initcheck: a shadow of each device
// allocation of the emulated runtime API (cudaMalloc, cudaMallocAsync) that says which of its
// bytes were written (by a kernel's store, a copy or a memset) and which were touched at all. A
// kernel's read of a byte nothing wrote is an `uninitialized_read` record (the allocation, the
// offset, the thread, the line); an allocation nothing touched is printed as it is freed, or at
// exit. It needs every load and store of the kernels: it is on (CUGUARD_EMULATION_INITCHECK,
// default on under AddressSanitizer) in cuguard_emulate(... SANITIZE) builds, whose access
// callbacks (detail/runtime/access_hooks.hpp) call access().
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/leak_check.hpp>
#include <cuguard/violation.hpp>

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// CUGUARD_EMULATION_INITCHECK, read once (sanitizing_setting: on under ASan).
inline bool initcheck_on() {
  static const bool on = sanitizing_setting(platform::setting::emulation_initcheck);
  return on;
}

/// What the shadow of one allocation says of each byte.
enum shadow_bits : unsigned char { written_bit = 1, touched_bit = 2 };

/// Shadow memory: pages of zeros the system maps as they are first written (a large cudaMalloc
/// block costs what its kernels touch).
struct shadow_pages {
  void operator()(unsigned char* p) const noexcept { ::munmap(p, bytes); }
  std::size_t bytes;
};
inline std::unique_ptr<unsigned char, shadow_pages> map_shadow(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return std::unique_ptr<unsigned char, shadow_pages>(p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p),
                                                      shadow_pages{bytes});
}

struct shadowed_allocation {
  std::size_t bytes;
  std::unique_ptr<unsigned char, shadow_pages> bits; ///< one per byte: shadow_bits
  const char* call;
  const char* function;
  bool touched; ///< any byte (written with __atomic: kernels run on several OS threads)
};

/// Every shadowed allocation, by address; `generation` counts the allocations and frees, so that
/// an OS thread's cached allocation is known to be gone, and its cached gap between allocations
/// to hold none still.
struct shadow_table {
  std::mutex mutex;
  std::map<std::uintptr_t, shadowed_allocation> all;
  std::atomic<std::uint64_t> generation{1};
  /// Every shadowed allocation lies in [lowest, highest) (allocations only widen it): most of a
  /// kernel's accesses (its stack, other memory) are told apart without the lock.
  std::atomic<std::uintptr_t> lowest{~std::uintptr_t{0}}, highest{0};
};
/// Some allocation was shadowed (plain data, read by a sanitizer's access hook with no call).
inline bool shadowing_any = false;
inline shadow_table& shadows() {
  static shadow_table* const t = new shadow_table; // never destroyed: frees may come late
  return *t;
}

/// "the 256 bytes of device memory allocated by cudaMalloc in main (0x...)"
inline void append_shadowed(text& s, std::uintptr_t begin, const shadowed_allocation& a) {
  char address[32];
  std::snprintf(address, sizeof address, " (0x%llx)", static_cast<unsigned long long>(begin));
  s << "the " << static_cast<std::uint64_t>(a.bytes) << " bytes of device memory";
  {
    backend::emulated_memory& m = backend::memory();
    const std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.blocks.find(begin);
    if (it != m.blocks.end() && it->second.label != nullptr) s << " '" << it->second.label << "'";
  }
  s << " allocated by " << a.call;
  if (a.function != nullptr && *a.function != '\0') s << " in " << a.function;
  s << address;
}

/// Prints the allocation at `begin` if nothing touched any of its bytes (`when`: "cudaFree in
/// main", "exit").
inline void print_if_unused(std::uintptr_t begin, const shadowed_allocation& a, const char* when) {
  if (a.bytes == 0 || __atomic_load_n(&a.touched, __ATOMIC_RELAXED)) return;
  text s = "cuguard: unused memory: ";
  append_shadowed(s, begin, a);
  s << " were never used (no kernel, copy or memset touched them), at " << when;
  std::fprintf(stderr, "%s\n", s.c_str());
}

/// A new device allocation of the runtime API: none of its bytes written.
inline void shadow_allocation(void* p, std::size_t bytes, const char* call, const char* function) {
  if (bytes == 0) return;
  shadowed_allocation a{bytes, map_shadow(bytes), call, function, false};
  if (a.bits == nullptr) return; // no address space for it: not followed
  shadow_table& t = shadows();
  {
    const std::lock_guard<std::mutex> lock(t.mutex);
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    t.all[begin] = std::move(a);
    t.generation.fetch_add(1, std::memory_order_acq_rel); // (a gap an OS thread cached may hold it)
    if (begin < t.lowest.load(std::memory_order_relaxed)) t.lowest.store(begin, std::memory_order_release);
    if (begin + bytes > t.highest.load(std::memory_order_relaxed)) t.highest.store(begin + bytes, std::memory_order_release);
    __atomic_store_n(&shadowing_any, true, __ATOMIC_RELEASE);
  }
  struct at_exit {
    ~at_exit() {
      shadow_table& t = shadows();
      const std::lock_guard<std::mutex> lock(t.mutex);
      for (const auto& [begin, a] : t.all) print_if_unused(begin, a, "exit");
    }
  };
  static at_exit printer;
  (void)printer;
}

/// The allocation at `p` is freed (`when`: "cudaFree in main").
inline void drop_shadow(void* p, const char* when) {
  shadow_table& t = shadows();
  const std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.all.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == t.all.end()) return;
  print_if_unused(it->first, it->second, when);
  t.all.erase(it);
  t.generation.fetch_add(1, std::memory_order_acq_rel);
}

/// The shadowed allocation that `a` lies in (null: none), with `t`'s mutex held; its first byte
/// into `begin`.
/// (null: none; then [gap[0], gap[1]) around `a` holds none, where `gap` is given)
inline shadowed_allocation* shadowed_at(shadow_table& t, std::uintptr_t a, std::uintptr_t& begin,
                                        std::uintptr_t* gap = nullptr) {
  auto it = t.all.upper_bound(a);
  if (gap != nullptr) gap[0] = 0, gap[1] = it == t.all.end() ? ~std::uintptr_t{0} : it->first;
  if (it == t.all.begin()) return nullptr;
  --it; // the allocation at or below a
  if (a - it->first >= it->second.bytes) {
    if (gap != nullptr) gap[0] = it->first + it->second.bytes;
    return nullptr;
  }
  begin = it->first;
  return &it->second;
}

/// The shadowed allocation that [a, a + n) starts in, through the calling OS thread's cache.
struct shadow_lookup {
  std::uintptr_t begin = 0;
  shadowed_allocation* allocation = nullptr;
  std::uint64_t generation = 0;
  std::uintptr_t gaps[4][2] = {}; ///< the last places found between allocations (none lies there)
  std::uint64_t gap_generation = 0;
  unsigned next_gap = 0;

  // (not sanitized: a sanitized build's access hook runs it at every access, mostly for memory
  // that is no allocation's: the runtime's own, the host's; such an address is found in the
  // gap cached, with no lock taken)
  __attribute__((no_sanitize_address)) bool find(std::uintptr_t a) {
    shadow_table& t = shadows();
    const std::uint64_t now = t.generation.load(std::memory_order_acquire);
    if (allocation != nullptr && generation == now && a - begin < allocation->bytes) return true;
    if (a < t.lowest.load(std::memory_order_acquire) || a >= t.highest.load(std::memory_order_acquire)) return false;
    if (gap_generation != now) {
      for (auto& g : gaps) g[0] = g[1] = 0;
      gap_generation = now;
    }
    for (const auto& g : gaps)
      if (a >= g[0] && a < g[1]) return false;
    const std::lock_guard<std::mutex> lock(t.mutex);
    std::uintptr_t around[2] = {0, 0};
    shadowed_allocation* const found = shadowed_at(t, a, begin, around);
    if (found == nullptr) {
      gaps[next_gap][0] = around[0], gaps[next_gap][1] = around[1];
      next_gap = (next_gap + 1) % 4;
      return false;
    }
    allocation = found;
    generation = now;
    return true;
  }
};

/// A copy or memset wrote [p, p + n) (the part of it in a shadowed allocation).
inline void shadow_written(const void* p, std::size_t n) {
  shadow_table& t = shadows();
  const std::lock_guard<std::mutex> lock(t.mutex);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t begin = 0;
  shadowed_allocation* s = n != 0 ? shadowed_at(t, a, begin) : nullptr;
  if (s == nullptr) return;
  const std::size_t from = a - begin;
  std::memset(s->bits.get() + from, written_bit | touched_bit, n < s->bytes - from ? n : s->bytes - from);
  s->touched = true;
}

/// Records that the running thread read `unwritten` bytes nothing wrote of the `n` at `a`
/// (offset `offset` into the allocation at `begin`), by the code at `pc`.
inline void record_uninitialized_read(std::uintptr_t a, std::size_t n, std::size_t unwritten, std::uintptr_t begin,
                                      const shadowed_allocation& s, const void* pc) {
  backend::record_thread_finding(*platform::running, pc, [&](violation& v) {
    v.kind = violation_kind::uninitialized_read;
    v.op = operation::access;
    v.space = memory_space::device;
    v.address = static_cast<std::int64_t>(a);
    v.bytes = static_cast<std::int64_t>(n);
    v.value = static_cast<std::int64_t>(a - begin);
    v.value_end = static_cast<std::int64_t>(unwritten);
    v.limit = static_cast<std::int64_t>(s.bytes);
    text label = s.call;
    if (s.function != nullptr && *s.function != '\0') label << " in " << s.function;
    copy_text(v.label, label.c_str());
  }, current_device_state<void>());
}

/// A load or store of `n` bytes at `a` by the running kernel thread, from the code at `pc`.
inline void shadow_access(std::uintptr_t a, std::size_t n, bool write, const void* pc) {
  static thread_local shadow_lookup cache;
  if (!cache.find(a)) return;
  shadowed_allocation& s = *cache.allocation;
  if (!__atomic_load_n(&s.touched, __ATOMIC_RELAXED)) __atomic_store_n(&s.touched, true, __ATOMIC_RELAXED);
  const std::size_t from = a - cache.begin, count = n < s.bytes - from ? n : s.bytes - from;
  unsigned char* bits = s.bits.get() + from;
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (write) {
      __atomic_store_n(bits + i, static_cast<unsigned char>(written_bit | touched_bit), __ATOMIC_RELAXED);
      continue;
    }
    const unsigned char b = __atomic_fetch_or(bits + i, static_cast<unsigned char>(touched_bit), __ATOMIC_RELAXED);
    unwritten += (b & written_bit) == 0 ? 1 : 0;
  }
  if (unwritten != 0) record_uninitialized_read(a, n, unwritten, cache.begin, s, pc);
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
