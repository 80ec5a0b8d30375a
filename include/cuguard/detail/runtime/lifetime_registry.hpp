// SPDX-License-Identifier: Apache-2.0
// The lifetime registry behind cuguard::track / release: the table of tracked allocations, the
// answers views get through detail::host_hooks, and the labels kept for as long as the program.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/view/lifetime_token.hpp>
#include <cuguard/report.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// What the registry knows of one allocation.
struct allocation_info {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;
  std::string label;
  memory_space space = memory_space::unknown;
  int device = -1;
  cuda::std::source_location allocated;
  cuda::std::source_location released;
  bool live = false;
};

/// Host-side table of tracked allocations. Slots are reused oldest-released first, so the
/// allocation and release sites of a stale view stay readable as long as possible. It installs
/// itself as host_hooks when it is first used (see registry()).
class lifetime_registry final : public host_hooks {
 public:
  lifetime_registry() { install_host_hooks(*this); }

  /// Registers `bytes` at `p`. With `once`, an allocation already live at `p` is kept (its
  /// token returned) instead of being registered again: what an adapter that sees the same
  /// storage from many tensors, on many threads, asks for.
  lifetime_token track(const void* p, std::size_t bytes, const char* label, memory_space space, int device,
                       cuda::std::source_location where, bool once = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    if (once) {
      const auto live = live_.find(begin);
      if (live != live_.end()) return {live->second, generation_of(live->second)};
    }
    std::uint32_t slot = 0;
    if (next_fresh_ < lifetime_slots) {
      slot = next_fresh_++;
    } else if (!free_.empty()) {
      slot = free_.front();
      free_.pop_front();
      forget_released(slot);
    } else {
      return {}; // table full: the allocation stays untracked
    }
    if (infos_.size() <= slot) infos_.resize(slot + 1);
    auto stale = released_.find(begin);
    if (stale != released_.end()) released_.erase(stale);
    infos_[slot] = allocation_info{begin, bytes, label ? label : "", space, device, where, {}, true};
    live_[begin] = slot;
    tracked_.fetch_add(1, std::memory_order_relaxed);
    return {slot, generation_of(slot)};
  }

  /// Releases the allocation that starts at `p` if one is live there (true); otherwise does
  /// nothing (false). Device copies of the generations are updated in the order of `stream`
  /// (host_hooks::released).
  bool release_live(const void* p, cuda::std::source_location where, void* stream = nullptr) {
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    std::uint32_t slot = 0, generation = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = live_.find(begin);
      if (it == live_.end()) return false;
      slot = it->second;
      live_.erase(it);
      infos_[slot].live = false;
      infos_[slot].released = where;
      generation = next_generation(slot);
      released_[begin] = slot;
      free_.push_back(slot);
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
      std::lock_guard<std::mutex> lock(mutex_);
      auto old = released_.find(begin);
      if (old != released_.end()) {
        v.kind = violation_kind::use_after_free;
        fill_allocation(v, infos_[old->second]);
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
    if (tracked_.load(std::memory_order_relaxed) != 0) {
      const auto addr = reinterpret_cast<std::uintptr_t>(p);
      std::lock_guard<std::mutex> lock(mutex_);
      std::uint32_t slot = containing(live_, addr);
      if (slot == 0) slot = first_within(addr, bytes);
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
      std::lock_guard<std::mutex> lock(mutex_);
      if (t.slot != 0 && t.slot < infos_.size()) {
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
    detail::copy_text(v.alloc_label, info.label.c_str());
    detail::copy_site(v.alloc_site, info.allocated);
    detail::copy_site(v.free_site, info.released);
    v.alloc_bytes = static_cast<std::int64_t>(info.bytes);
  }

 private:
  std::uint32_t containing(const std::map<std::uintptr_t, std::uint32_t>& m, std::uintptr_t addr) const {
    auto it = m.upper_bound(addr);
    if (it == m.begin()) return 0;
    --it;
    const std::size_t bytes = infos_[it->second].bytes;
    return addr - it->first < (bytes == 0 ? 1 : bytes) ? it->second : 0;
  }

  // The first live allocation that begins in (addr, addr + bytes), 0 if none.
  std::uint32_t first_within(std::uintptr_t addr, std::size_t bytes) const {
    auto it = live_.upper_bound(addr);
    return it != live_.end() && it->first - addr < bytes ? it->second : 0;
  }

  void forget_released(std::uint32_t slot) {
    for (auto it = released_.begin(); it != released_.end(); ++it) {
      if (it->second == slot) {
        released_.erase(it);
        return;
      }
    }
  }

  mutable std::mutex mutex_;
  std::vector<allocation_info> infos_;
  std::map<std::uintptr_t, std::uint32_t> live_;
  std::map<std::uintptr_t, std::uint32_t> released_;
  std::deque<std::uint32_t> free_;
  std::uint32_t next_fresh_ = 1; // slot 0 means "untracked"
  std::atomic<std::uint32_t> tracked_{0};
};

/// The registry, made at its first use and never destroyed (host_hooks may ask it until the
/// process ends).
inline lifetime_registry& registry() {
  static lifetime_registry* const r = new lifetime_registry();
  return *r;
}

} // namespace detail

namespace detail {
/// A copy of `label` that lives as long as the program (null: ""), for what keeps a label past
/// the call that gave it: a buffer's views and their reports read it after the caller's string
/// is gone, and after the buffer was released. Equal labels share one copy.
inline const char* keep_label(const char* label) {
  // Never destroyed: a report may be formatted during static destruction.
  static std::mutex* mutex = new std::mutex;
  static std::set<std::string, std::less<>>* labels = new std::set<std::string, std::less<>>;
  std::lock_guard<std::mutex> lock(*mutex);
  const char* text = label != nullptr ? label : "";
  auto found = labels->find(text);
  if (found == labels->end()) found = labels->emplace(text).first;
  return found->c_str();
}
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
