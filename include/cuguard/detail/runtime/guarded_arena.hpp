// SPDX-License-Identifier: Apache-2.0
// Where a sanitized build's device memory lives under emulation (cuguard.torch.load(...,
// sanitize=True): the tensor storages; cuguard_emulate(... SANITIZE): the runtime API's
// allocations): one region of address space reserved at the first allocation, inaccessible
// (PROT_NONE) but for the pages of the blocks handed out, each followed by `gap` bytes that no
// block ever holds. An access past a block by up to the gap lands in the region and outside
// every block, which the live memory (live_memory.hpp) reports before the access happens; an
// access the check does not see would fault there. A block given back is inaccessible at once,
// and its addresses are handed out again only after `held_blocks` later blocks were given back,
// so that a late access to it is a use after free, not an access to a new block. Without a
// region (the address space is full: a GPU's runtime reserves much of it) or room in it, the
// caller allocates as before.
#pragma once

#include <cuguard/config.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

class guarded_arena {
 public:
  /// Bytes after each block that no block holds (an overrun of up to this much is caught).
  static constexpr std::size_t gap = std::size_t{2} << 30;

  /// The process's arena, reserved at the first call (null where no region could be reserved).
  static guarded_arena* get() {
    static guarded_arena* const arena = reserve(); // never destroyed: storages are freed late
    return arena;
  }

  /// `bytes` (> 0) readable and writable bytes, page-aligned, with `gap` inaccessible bytes
  /// after them; null where the region has no room or the system refuses.
  void* allocate(std::size_t bytes) {
    const std::size_t pages = round_up(bytes), need = pages + gap;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < need) continue;
      const std::uintptr_t at = it->first;
      if (::mprotect(reinterpret_cast<void*>(at), pages, PROT_READ | PROT_WRITE) != 0) return nullptr;
      if (it->second > need) free_[at + need] = it->second - need;
      free_.erase(it);
      used_[at] = need;
      return reinterpret_cast<void*>(at);
    }
    return nullptr;
  }

  /// The block at `p` (from allocate) given back: its pages returned to the system, inaccessible;
  /// its addresses free again once `held_blocks` more blocks were given back.
  void release(void* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = used_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == used_.end()) return;
    const std::uintptr_t at = it->first;
    const std::size_t size = it->second;
    used_.erase(it);
    ::mmap(p, size - gap, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    std::pair<std::uintptr_t, std::size_t>& slot = held_[held_next_++ % held_blocks];
    if (held_next_ > held_blocks) free_run(slot); // (the oldest held: free again)
    slot = {at, size};
  }

  /// True if `a` lies in the region.
  bool contains(std::uintptr_t a) const noexcept { return a - begin_ < size_; }
  std::uintptr_t begin() const noexcept { return begin_; }
  std::uintptr_t end() const noexcept { return begin_ + size_; }
  /// The blocks handed out and not given back.
  std::size_t blocks() {
    std::lock_guard<std::mutex> lock(mutex_);
    return used_.size();
  }

  /// Blocks given back whose addresses are not handed out yet (of the region's 8192).
  static constexpr std::size_t held_blocks = 1024;

 private:
  guarded_arena(std::uintptr_t begin, std::size_t size) : begin_(begin), size_(size) { free_[begin] = size; }
  /// The run [at, at + size) free again, merged with the free runs around it.
  void free_run(std::pair<std::uintptr_t, std::size_t> run) {
    std::uintptr_t at = run.first;
    std::size_t size = run.second;
    const auto after = free_.find(at + size);
    if (after != free_.end()) {
      size += after->second;
      free_.erase(after);
    }
    const auto next = free_.upper_bound(at);
    if (next != free_.begin() && std::prev(next)->first + std::prev(next)->second == at) {
      std::prev(next)->second += size;
      return;
    }
    free_[at] = size;
  }
  static std::size_t round_up(std::size_t bytes) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
  }
  /// 16 TiB of address space (8192 blocks), or less where that much is not free.
  static guarded_arena* reserve() {
    for (std::size_t size = std::size_t{16} << 40; size >= (std::size_t{64} << 30); size /= 4) {
      void* p = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) return new guarded_arena(reinterpret_cast<std::uintptr_t>(p), size);
    }
    return nullptr;
  }
  std::mutex mutex_;
  std::uintptr_t begin_;
  std::size_t size_;
  std::map<std::uintptr_t, std::size_t> free_; ///< free runs: first byte, bytes
  std::map<std::uintptr_t, std::size_t> used_; ///< blocks: first byte, bytes with their gap
  std::pair<std::uintptr_t, std::size_t> held_[held_blocks] = {}; ///< given back, not free yet (a ring)
  std::size_t held_next_ = 0;                                     ///< blocks given back so far
};

/// Set where a sanitized build's access hooks check kernels' accesses against the live memory
/// (access_hooks.hpp): the runtime API's blocks are then allocated in the guarded arena, so that
/// a kernel's overrun of up to its gap is reported before it happens.
inline std::atomic<bool> guard_blocks{false};
/// AddressSanitizer's (un)poisoning, where its runtime is linked (set with guard_blocks): the
/// bytes of a guarded block's last page past its end are poisoned, so that host code's overrun is
/// reported too.
inline void (*poison_bytes)(const volatile void*, std::size_t) = nullptr;
inline void (*unpoison_bytes)(const volatile void*, std::size_t) = nullptr;

/// The bytes of the pages that `bytes` bytes take.
inline std::size_t page_bytes(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

/// `n` (> 0) bytes of the guarded arena, the rest of their last page poisoned; null where blocks
/// are not guarded or the arena has no room.
inline void* allocate_guarded(std::size_t n) {
  guarded_arena* const arena = guard_blocks.load(std::memory_order_relaxed) ? guarded_arena::get() : nullptr;
  void* const p = arena != nullptr ? arena->allocate(n) : nullptr;
  if (p != nullptr && poison_bytes != nullptr) poison_bytes(static_cast<char*>(p) + n, page_bytes(n) - n);
  return p;
}

/// The block of `n` bytes at `p` (from allocate_guarded) given back.
inline void free_guarded(void* p, std::size_t n) {
  if (unpoison_bytes != nullptr) unpoison_bytes(p, page_bytes(n));
  guarded_arena::get()->release(p);
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
