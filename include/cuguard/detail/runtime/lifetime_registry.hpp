// SPDX-License-Identifier: Apache-2.0
// The lifetime registry behind cuguard::track / release: the table of tracked allocations, the
// answers views get through detail::host_hooks, and the labels kept for as long as the program.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/platform/host_mutex.hpp>
#include <cuguard/detail/view/lifetime_token.hpp>
#include <cuguard/violation.hpp>
#include <cuguard/violation_error.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// What the registry knows of one allocation.
struct allocation_info {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;
  char label[sizeof(violation::alloc_label)] = {}; // as much of it as a report names
  memory_space space = memory_space::unknown;
  int device = -1;
  cuda::std::source_location allocated;
  cuda::std::source_location released;
  bool live = false;
};

/// Allocations by their first byte, sorted: at most lifetime_slots entries, in storage the
/// registry hands it. Binary search to find, a move of the tail to insert or erase (the table is
/// small by default, and changes only where memory is tracked or released).
class slots_by_address {
 public:
  struct entry {
    std::uintptr_t begin;
    std::uint32_t slot;
  };
  void attach(entry* storage) noexcept { e_ = storage; }
  /// The first entry that begins after `addr` (size() if none).
  std::size_t upper_bound(std::uintptr_t addr) const noexcept {
    std::size_t lo = 0, hi = n_;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (e_[mid].begin <= addr) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /// The slot that begins at `begin`, 0 if none.
  std::uint32_t find(std::uintptr_t begin) const noexcept {
    const std::size_t i = upper_bound(begin);
    return i > 0 && e_[i - 1].begin == begin ? e_[i - 1].slot : 0;
  }
  void assign(std::uintptr_t begin, std::uint32_t slot) noexcept {
    const std::size_t i = upper_bound(begin);
    if (i > 0 && e_[i - 1].begin == begin) {
      e_[i - 1].slot = slot;
      return;
    }
    std::memmove(e_ + i + 1, e_ + i, (n_ - i) * sizeof(entry));
    e_[i] = entry{begin, slot};
    ++n_;
  }
  void erase_at(std::size_t i) noexcept {
    std::memmove(e_ + i, e_ + i + 1, (n_ - i - 1) * sizeof(entry));
    --n_;
  }
  /// Erases the entry that begins at `begin`; false if none.
  bool erase(std::uintptr_t begin) noexcept {
    const std::size_t i = upper_bound(begin);
    if (i == 0 || e_[i - 1].begin != begin) return false;
    erase_at(i - 1);
    return true;
  }
  /// Erases the entry of `slot` (a scan: released slots are erased when they are reused).
  void erase_slot(std::uint32_t slot) noexcept {
    for (std::size_t i = 0; i < n_; ++i)
      if (e_[i].slot == slot) return erase_at(i);
  }
  std::size_t size() const noexcept { return n_; }
  const entry& operator[](std::size_t i) const noexcept { return e_[i]; }

 private:
  entry* e_ = nullptr;
  std::size_t n_ = 0;
};

/// Host-side table of tracked allocations. Slots are reused oldest-released first, so the
/// allocation and release sites of a stale view stay readable as long as possible. It installs
/// itself as host_hooks when it is first used (see registry()). Its tables have room for
/// lifetime_slots allocations, made at the first track().
class lifetime_registry final : public host_hooks {
 public:
  lifetime_registry() { install_host_hooks(*this); }

  /// Registers `bytes` at `p`. With `once`, an allocation already live at `p` is kept (its
  /// token returned) instead of being registered again: what an adapter that sees the same
  /// storage from many tensors, on many threads, asks for.
  lifetime_token track(const void* p, std::size_t bytes, const char* label, memory_space space, int device,
                       cuda::std::source_location where, bool once = false) {
    host_lock lock(mutex_);
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    if (once) {
      const std::uint32_t live = live_.find(begin);
      if (live != 0) return {live, generation_of(live)};
    }
    if (infos_ == nullptr && !make_tables()) return {};
    std::uint32_t slot = 0;
    if (next_fresh_ < lifetime_slots) {
      slot = next_fresh_++;
    } else if (free_count_ != 0) {
      slot = free_[free_head_];
      free_head_ = (free_head_ + 1) % lifetime_slots;
      --free_count_;
      released_.erase_slot(slot);
    } else {
      return {}; // table full: the allocation stays untracked
    }
    released_.erase(begin);
    allocation_info& info = infos_[slot];
    info = allocation_info{};
    info.begin = begin;
    info.bytes = bytes;
    detail::copy_text(info.label, label != nullptr ? label : "");
    info.space = space;
    info.device = device;
    info.allocated = where;
    info.live = true;
    live_.assign(begin, slot);
    __atomic_add_fetch(&tracked_, 1u, __ATOMIC_RELAXED);
    return {slot, generation_of(slot)};
  }

  /// Releases the allocation that starts at `p` if one is live there (true); otherwise does
  /// nothing (false). Device copies of the generations are updated in the order of `stream`
  /// (host_hooks::released).
  bool release_live(const void* p, cuda::std::source_location where, void* stream = nullptr) {
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    std::uint32_t slot = 0, generation = 0;
    {
      host_lock lock(mutex_);
      slot = live_.find(begin);
      if (slot == 0) return false;
      live_.erase(begin);
      infos_[slot].live = false;
      infos_[slot].released = where;
      generation = next_generation(slot);
      released_.assign(begin, slot);
      free_[(free_head_ + free_count_) % lifetime_slots] = slot;
      ++free_count_;
    }
    // Outside the registry's lock: the runtime's hooks make CUDA calls and take its lock.
    allocation_released(slot, generation, stream);
    return true;
  }

  /// Releases the allocation that starts at `p`; a violation if there is none (released
  /// already: use_after_free; never tracked: invalid_argument).
  void release(const void* p, cuda::std::source_location where, void* stream = nullptr) {
    if (release_live(p, where, stream)) return;
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    violation v{};
    {
      host_lock lock(mutex_);
      const std::uint32_t old = released_.find(begin);
      if (old != 0) {
        v.kind = violation_kind::use_after_free;
        fill_allocation(v, infos_[old]);
      } else {
        v.kind = violation_kind::invalid_argument;
        v.value = static_cast<std::int64_t>(begin);
      }
    }
    v.op = operation::release;
    v.dim = -1;
    v.device = -1;
    v.count = 1;
    detail::copy_tail(v.file, where.file_name());
    detail::copy_text(v.function, where.function_name());
    v.line = static_cast<unsigned>(where.line());
    raise_host(v);
  }

  /// The live allocation containing `p`, or else the first that begins within `bytes` of it.
  /// Released ones are not searched: their memory may have been handed out again by an
  /// allocator cuguard does not see.
  allocation_span locate(const void* p, std::size_t bytes) const override {
    if (__atomic_load_n(&tracked_, __ATOMIC_RELAXED) != 0) {
      const auto addr = reinterpret_cast<std::uintptr_t>(p);
      host_lock lock(mutex_);
      const std::uint32_t slot = containing_or_within(addr, bytes);
      if (slot != 0) {
        const allocation_info& info = infos_[slot];
        allocation_span r;
        r.tracked = true;
        r.token = {slot, generation_of(slot)};
        r.begin = info.begin;
        r.bytes = info.bytes;
        r.space = info.space;
        r.device = info.device;
        return r;
      }
    }
    return host_hooks::locate(p, bytes);
  }

  /// Fills the allocation fields of `v` for `t`: a live allocation, or a released one whose
  /// slot was not reused since.
  bool describe(const lifetime_token& t, violation& v) const override {
    {
      host_lock lock(mutex_);
      if (t.slot != 0 && t.slot < next_fresh_) {
        const allocation_info& info = infos_[t.slot];
        const std::uint32_t now = generation_of(t.slot);
        if (info.live ? now == t.generation : now == t.generation + 1) {
          fill_allocation(v, info);
          return true;
        }
      }
    }
    return host_hooks::describe(t, v);
  }

  static void fill_allocation(violation& v, const allocation_info& info) {
    detail::copy_text(v.alloc_label, info.label);
    detail::copy_site(v.alloc_site, info.allocated);
    detail::copy_site(v.free_site, info.released);
    v.alloc_bytes = static_cast<std::int64_t>(info.bytes);
  }

 private:
  // The live allocation that contains `addr`, or else the first that begins in (addr, addr +
  // bytes); 0 if none.
  std::uint32_t containing_or_within(std::uintptr_t addr, std::size_t bytes) const noexcept {
    const std::size_t after = live_.upper_bound(addr);
    if (after > 0) {
      const slots_by_address::entry& e = live_[after - 1];
      const std::size_t size = infos_[e.slot].bytes;
      if (addr - e.begin < (size == 0 ? 1 : size)) return e.slot;
    }
    return after < live_.size() && live_[after].begin - addr < bytes ? live_[after].slot : 0;
  }

  // The tables, in one block that lives as long as the program; false if it cannot be had.
  bool make_tables() noexcept {
    static_assert(std::is_trivially_copyable<allocation_info>::value, "allocation_info is copied as bytes");
    const std::size_t n = lifetime_slots;
    void* block = std::calloc(1, n * (sizeof(allocation_info) + 2 * sizeof(slots_by_address::entry) +
                                      sizeof(std::uint32_t)));
    if (block == nullptr) return false;
    auto* infos = static_cast<allocation_info*>(block);
    for (std::size_t i = 0; i < n; ++i) new (infos + i) allocation_info{};
    auto* entries = reinterpret_cast<slots_by_address::entry*>(infos + n);
    live_.attach(entries);
    released_.attach(entries + n);
    free_ = reinterpret_cast<std::uint32_t*>(entries + 2 * n);
    infos_ = infos;
    return true;
  }

  mutable host_mutex mutex_;
  allocation_info* infos_ = nullptr; // lifetime_slots of them, by slot
  slots_by_address live_;
  slots_by_address released_;
  std::uint32_t* free_ = nullptr; // released slots, oldest first: a ring of lifetime_slots
  std::uint32_t free_head_ = 0;
  std::uint32_t free_count_ = 0;
  std::uint32_t next_fresh_ = 1; // slot 0 means "untracked"
  std::uint32_t tracked_ = 0;    // atomic: allocations ever tracked, read without the lock
};

/// The registry, made at its first use and never destroyed (host_hooks may ask it until the
/// process ends).
inline lifetime_registry& registry() {
  static lifetime_registry* const r = new lifetime_registry();
  return *r;
}

/// A copy of `label` that lives as long as the program (null: ""), for what keeps a label past
/// the call that gave it: a buffer's views and their reports read it after the caller's string
/// is gone, and after the buffer was released. Equal labels share one copy (an open-addressed
/// table of the copies, never shrunk: a report may be formatted during static destruction).
inline const char* keep_label(const char* label) {
  struct table {
    host_mutex mutex;
    char** slots = nullptr;
    std::size_t capacity = 0, used = 0;
  };
  static table* const t = new table;
  const char* text = label != nullptr ? label : "";
  const std::size_t length = std::strlen(text);
  const auto hash = [](const char* c) {
    std::size_t h = 1469598103934665603ull; // FNV-1a
    for (; *c != '\0'; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    return h;
  };
  host_lock lock(t->mutex);
  if (2 * (t->used + 1) > t->capacity) { // grow to keep the table at most half full
    const std::size_t capacity = t->capacity == 0 ? 64 : 2 * t->capacity;
    auto** slots = static_cast<char**>(std::calloc(capacity, sizeof(char*)));
    if (slots == nullptr) return "";
    for (std::size_t i = 0; i < t->capacity; ++i) {
      char* kept = t->slots[i];
      if (kept == nullptr) continue;
      std::size_t j = hash(kept) & (capacity - 1);
      while (slots[j] != nullptr) j = (j + 1) & (capacity - 1);
      slots[j] = kept;
    }
    std::free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
  }
  std::size_t j = hash(text) & (t->capacity - 1);
  for (; t->slots[j] != nullptr; j = (j + 1) & (t->capacity - 1))
    if (std::strcmp(t->slots[j], text) == 0) return t->slots[j];
  auto* kept = static_cast<char*>(std::malloc(length + 1));
  if (kept == nullptr) return "";
  std::memcpy(kept, text, length + 1);
  t->slots[j] = kept;
  ++t->used;
  return kept;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
