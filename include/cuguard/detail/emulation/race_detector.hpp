// SPDX-License-Identifier: Apache-2.0
// Emulation's shared-memory race detector: which thread of a block touched which element of
// shared memory (reached through a checked view) since the block's last barrier.
//
// The threads of a block run one at a time on one OS thread, each until it waits at a barrier
// or a warp-wide operation, or returns (a segment). Within a segment nothing but the running
// thread changes shared memory, so what it wrote is what differs, at the segment's end, from
// what the element held at its first access in the segment. Two accesses of one element by
// two threads race when one of them wrote it and no barrier orders them: no __syncthreads()
// since both, and for two lanes of one warp no __syncwarp() (or warp-wide operation) either.
// An element changed only by atomics races with nothing. A store that leaves the element's
// bytes as they were is not seen as a write; so that a block's stores show even when they store
// what an earlier block (or launch) left there, the elements that views stored to in this launch
// or the last one are filled with 0xCD bytes at the start of each block, as a GPU leaves shared
// memory undefined there. Elements are told apart by address: views of one array with element
// types of other sizes are not held against each other.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/violation.hpp>

#include <vector_types.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// A source position, and one access to shared memory through a checked view as a race report
/// names it: the device seam's (detail/platform/emulated_thread.hpp), which views fill in.
using source_site = platform::source_site;
using shared_access = platform::shared_access;

/// How the two accesses of a race conflict: the thread whose segment found it read what the
/// other wrote, wrote what it read, or both wrote.
enum class race_order : unsigned char { read_after_write, write_after_read, write_after_write };

/// The first race of a grid (found false: none). Threads are numbered within the block
/// (x fastest).
struct shared_race {
  bool found;
  uint3 block;
  unsigned thread;       ///< the thread whose access found the race
  unsigned other;        ///< the thread it races with
  race_order order;
  shared_access access;  ///< the access of `thread`
  source_site other_site;///< where `other` touched the element
};

class race_detector {
 public:
  /// A new launch: no race is found yet; what the last launch stored is filled with the pattern
  /// at each block start of this one too; the elements of the old dynamic shared memory
  /// [old_dynamic, + old_bytes) are no longer shared memory (the buffer may move).
  void begin_grid(const unsigned char* old_dynamic, std::size_t old_bytes) {
    race_ = shared_race{};
    race_across_ = false;
    ++launch_;
    const auto begin = reinterpret_cast<std::uintptr_t>(old_dynamic), end = begin + old_bytes;
    const auto outside = [&](std::uintptr_t addr, std::size_t bytes) {
      return old_bytes == 0 || addr + bytes <= begin || addr >= end;
    };
    fill_before_.clear();
    for (const element& e : fill_now_)
      if (outside(e.addr, e.bytes)) fill_before_.push_back(e);
    fill_now_.clear();
    fill_changed_ = true;
    if (old_bytes == 0) return;
    bool any = false;
    for (const cell& c : table_) any = any || (c.addr != 0 && !outside(c.addr, c.bytes));
    if (!any) return;
    std::vector<cell> old(table_.size());
    old.swap(table_);
    count_ = 0;
    for (const cell& c : old)
      if (c.addr != 0 && outside(c.addr, c.bytes)) table_[insert(c.addr, c.bytes)].written_launch = c.written_launch;
  }

  /// Memory that is never shared memory of a kernel (the scheduler's own thread_local state):
  /// an oversized view that reaches it is not followed there, nor is it filled with the pattern.
  void protect(const void* p, std::size_t bytes) {
    protected_.push_back(element{reinterpret_cast<std::uintptr_t>(p), bytes});
  }

  /// A new block (`block`, of `threads` threads): nothing of it has run. The elements that views
  /// stored to in this launch or the last one are filled with 0xCD bytes.
  void begin_block(uint3 block, unsigned threads) {
    new_epoch();
    block_ = block;
    ++segment_; // what a thread of the last block logged is no segment of this one
    log_.clear();
    bytes_.clear();
    descriptions_.clear();
    warp_epochs_.assign((threads + 31) / 32, 0);
    if (fill_changed_) merge_fills();
    for (const element& e : fill_) std::memset(reinterpret_cast<void*>(e.addr), 0xCD, e.bytes);
  }

  /// Every live thread of the block passed a __syncthreads(): what came before is ordered.
  void block_barrier() noexcept { new_epoch(); }
  /// The lanes of warp `w` passed a warp barrier together.
  void warp_barrier(unsigned w) noexcept { ++warp_epochs_[w]; }

  /// The running thread accesses `count` elements of `bytes` each from `p` (a vector access
  /// counts its elements one by one) at `site`. `describe(a)` fills in the access, as a report
  /// would name it, where a report may need it: the first access of an element in a segment,
  /// where another access of it since the last barrier is known (the index it gives is the first
  /// element's). An element only one thread touched costs a lookup and its snapshot. An element is
  /// watched only where `admit(address, bytes)` says it lies in shared memory whole: an oversized
  /// view is not followed past it.
  template <class Describe, class Admit>
  void access(void* p, std::size_t bytes, int count, const source_site& site, const Describe& describe,
              const Admit& admit) {
    for (int k = 0; k < count; ++k) {
      const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(p) + static_cast<std::size_t>(k) * bytes;
      std::size_t i = lookup(addr);
      if (i == npos) {
        if (!admit(addr, bytes) || is_protected(addr, bytes)) continue;
        i = insert(addr, bytes);
      }
      cell& c = table_[i];
      if (c.logged == segment_ + 1) continue; // this segment has its value already
      c.logged = segment_ + 1;
      c.log = log_.size();
      int description = -1;
      // A race of this access is found at the segment's end against the accesses the element
      // has now (no other thread runs before): none since the barrier, no race, no description.
      if (c.epoch == epoch_ && (c.writer >= 0 || c.readers >= 0)) {
        description = static_cast<int>(descriptions_.size());
        descriptions_.emplace_back();
        describe(descriptions_.back());
        descriptions_.back().index[descriptions_.back().rank - 1] += k;
      }
      logged_access& l = log_.emplace_back();
      l.addr = addr;
      l.cell = i;
      l.bytes = bytes;
      l.atomic = false;
      l.description = description;
      l.site = site;
      const auto* from = reinterpret_cast<const unsigned char*>(addr);
      if (bytes <= sizeof l.small) {
        copy_small(l.small, from, bytes);
      } else {
        l.snapshot = bytes_.size();
        bytes_.insert(bytes_.end(), from, from + bytes);
      }
    }
  }

  /// The running thread runs an atomic operation on `p`: if a view reached the element that
  /// holds `p` in this segment, the change is the atomic's (atomics race with nothing).
  void atomic(const void* p) noexcept {
    if (log_.empty()) return;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::size_t i = lookup(a);
    if (i != npos && table_[i].logged == segment_ + 1) {
      log_[table_[i].log].atomic = true;
      return;
    }
    for (logged_access& l : log_) // a member of an element, or a part of a vector
      if (a >= l.addr && a - l.addr < l.bytes) {
        l.atomic = true;
        return;
      }
  }

  /// The running thread `t` stops running (it waits, or returned): what it wrote is known now.
  /// Inline where it logged nothing (every thread with checks off, most without shared views):
  /// a segment that logged nothing marked no element (cell::logged) and needs no number of its own.
  void end_segment(unsigned t) {
    if (!log_.empty()) end_logged_segment(t);
  }

 private:
  __attribute__((noinline)) void end_logged_segment(unsigned t) {
    const std::uint32_t my_warp_epoch = warp_epochs_[t / 32];
    for (const logged_access& l : log_) {
      cell& c = table_[l.cell];
      if (c.epoch != epoch_) { // nothing of this element since the last barrier
        c.epoch = epoch_;
        c.writer = -1;
        c.readers = -1;
      }
      if (l.atomic) continue;
      const bool wrote = changed(l);
      if (c.writer >= 0 && !ordered(c.writer, c.writer_warp_epoch, t))
        found(t, wrote ? race_order::write_after_write : race_order::read_after_write, l, c.writer, c.writer_site);
      if (wrote) {
        for (int r = c.readers; r >= 0 && !(race_.found && race_across_); r = readers_[static_cast<std::size_t>(r)].next) {
          const reader& e = readers_[static_cast<std::size_t>(r)];
          if (!ordered(e.thread, e.warp_epoch, t)) found(t, race_order::write_after_read, l, e.thread, e.site);
        }
        c.writer = static_cast<int>(t);
        c.writer_warp_epoch = my_warp_epoch;
        c.writer_site = l.site;
        if (c.written_launch != launch_) {
          c.written_launch = launch_;
          fill_now_.push_back(element{l.addr, l.bytes});
          fill_changed_ = true;
        }
      } else {
        readers_.push_back(reader{static_cast<int>(t), my_warp_epoch, l.site, c.readers});
        c.readers = static_cast<int>(readers_.size() - 1);
      }
    }
    log_.clear();
    bytes_.clear();
    descriptions_.clear();
    ++segment_;
  }

 public:
  /// The grid's first race between two warps, else its first race (found false: none).
  const shared_race& first() const noexcept { return race_; }

 private:
  static constexpr std::size_t npos = ~std::size_t{0};
  struct cell {
    std::uintptr_t addr = 0;         ///< 0: empty
    std::size_t bytes = 0;
    std::uint64_t epoch = 0;         ///< the block epoch its writer and readers belong to
    std::uint64_t logged = 0;        ///< segment + 1 in which it was logged last
    std::uint64_t written_launch = 0;///< the launch a view last stored to it in
    std::size_t log = 0;             ///< its entry in log_ (when logged in this segment)
    int writer = -1;                 ///< the last thread that stored to it (-1: none)
    std::uint32_t writer_warp_epoch = 0;
    source_site writer_site{};
    int readers = -1;                ///< its last reader in readers_ (-1: none), the others chained
  };
  /// A read of an element since the last barrier (every one is kept until the next barrier).
  struct reader {
    int thread;
    std::uint32_t warp_epoch;
    source_site site;
    int next; ///< the reader before (-1: none)
  };
  struct element {
    std::uintptr_t addr;
    std::size_t bytes;
  };
  struct logged_access {
    logged_access() noexcept {} // each field is written as the access is logged: none zeroed first
    std::uintptr_t addr;
    std::size_t cell;        ///< its element's, in table_ (kept where the table grows)
    unsigned char small[16]; ///< its bytes at the first access, where they fit
    std::size_t snapshot;    ///< else their offset in bytes_
    std::size_t bytes;
    bool atomic;
    int description;  ///< the access as a report names it, in descriptions_ (-1: none needed)
    source_site site; ///< where it was
  };

  // An element's bytes, snapshot and compare: the usual sizes inline (calls of memcpy and memcmp
  // were a tenth of a checked transpose's instructions). Not instrumented under SANITIZE: a load
  // of shared memory here would reach the access hooks, and through them this detector's log.
  template <class Word>
  __attribute__((no_sanitize_address)) static Word word(const void* p) noexcept {
    Word w;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  template <class Word>
  static void put(void* to, Word w) noexcept {
    std::memcpy(to, &w, sizeof w);
  }
  static void copy_small(unsigned char* to, const void* from, std::size_t bytes) noexcept {
    switch (bytes) {
    case 4: return put(to, word<std::uint32_t>(from));
    case 8: return put(to, word<std::uint64_t>(from));
    case 2: return put(to, word<std::uint16_t>(from));
    case 1: return put(to, word<std::uint8_t>(from));
    default: std::memcpy(to, from, bytes);
    }
  }
  /// True if the element of `l` differs now from its bytes at its first access in the segment.
  bool changed(const logged_access& l) const noexcept {
    const void* now = reinterpret_cast<const void*>(l.addr);
    switch (l.bytes) {
    case 4: return word<std::uint32_t>(l.small) != word<std::uint32_t>(now);
    case 8: return word<std::uint64_t>(l.small) != word<std::uint64_t>(now);
    case 2: return word<std::uint16_t>(l.small) != word<std::uint16_t>(now);
    case 1: return word<std::uint8_t>(l.small) != word<std::uint8_t>(now);
    default: break;
    }
    const void* before = l.bytes <= sizeof l.small ? static_cast<const void*>(l.small) : bytes_.data() + l.snapshot;
    return std::memcmp(before, now, l.bytes) != 0;
  }

  void new_epoch() noexcept {
    ++epoch_;
    readers_.clear();
  }

  /// True if an access of thread `a` (in its warp's epoch `e`) comes before thread `b`'s.
  bool ordered(int a, std::uint32_t e, unsigned b) const noexcept {
    const auto ua = static_cast<unsigned>(a);
    return ua == b || (ua / 32 == b / 32 && warp_epochs_[ua / 32] != e);
  }

  /// Keeps the grid's first race, or the first between two warps where the first was within
  /// one: the report names the barrier that orders them all (__syncthreads(), not __syncwarp()).
  void found(unsigned t, race_order order, const logged_access& l, int other, const source_site& other_site) {
    const bool across = t / 32 != static_cast<unsigned>(other) / 32;
    if (race_.found && (race_across_ || !across)) return;
    race_across_ = across;
    race_.found = true;
    race_.block = block_;
    race_.thread = t;
    race_.other = static_cast<unsigned>(other);
    race_.order = order;
    race_.access = l.description >= 0 ? descriptions_[static_cast<std::size_t>(l.description)] : shared_access{};
    race_.access.site = l.site;
    race_.other_site = other_site;
  }

  /// fill_before_ and fill_now_ as the fewest ranges, in address order: one memset for the
  /// elements of a row of a tile where there was one for each element (a checked transpose's
  /// block began with 2,112 calls of memset for 4 bytes each).
  void merge_fills() {
    fill_.assign(fill_before_.begin(), fill_before_.end());
    fill_.insert(fill_.end(), fill_now_.begin(), fill_now_.end());
    std::sort(fill_.begin(), fill_.end(), [](const element& a, const element& b) { return a.addr < b.addr; });
    std::size_t kept = 0; // ranges in fill_[0, kept)
    for (std::size_t i = 0; i < fill_.size(); ++i) {
      const element e = fill_[i];
      element* last = kept > 0 ? &fill_[kept - 1] : nullptr;
      if (last != nullptr && e.addr <= last->addr + last->bytes) // touches or overlaps the range before
        last->bytes = std::max(last->bytes, e.addr + e.bytes - last->addr);
      else
        fill_[kept++] = e;
    }
    fill_.resize(kept);
    fill_changed_ = false;
  }

  bool is_protected(std::uintptr_t addr, std::size_t bytes) const noexcept {
    for (const element& e : protected_)
      if (addr < e.addr + e.bytes && e.addr < addr + bytes) return true;
    return false;
  }

  static std::size_t hash(std::uintptr_t addr, std::size_t mask) noexcept {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(addr) * 0x9e3779b97f4a7c15ull) >> 17) & mask;
  }
  std::size_t lookup(std::uintptr_t addr) const noexcept {
    if (count_ == 0) return npos; // (also where the table is not made yet)
    for (std::size_t i = hash(addr, mask_);; i = (i + 1) & mask_) {
      if (table_[i].addr == addr) return i;
      if (table_[i].addr == 0) return npos;
    }
  }
  std::size_t insert(std::uintptr_t addr, std::size_t bytes) {
    if ((count_ + 1) * 2 > table_.size()) grow();
    std::size_t i = hash(addr, mask_);
    while (table_[i].addr != 0) i = (i + 1) & mask_;
    table_[i].addr = addr;
    table_[i].bytes = bytes;
    ++count_;
    return i;
  }
  void grow() {
    std::vector<cell> old(table_.size() < 64 ? 128 : table_.size() * 2);
    old.swap(table_);
    mask_ = table_.size() - 1;
    for (const cell& c : old) {
      if (c.addr == 0) continue;
      std::size_t i = hash(c.addr, mask_);
      while (table_[i].addr != 0) i = (i + 1) & mask_;
      table_[i] = c;
    }
    for (logged_access& l : log_) l.cell = lookup(l.addr); // the running segment's cells moved
  }

  std::vector<cell> table_;           ///< every element views reached, by address (open addressing)
  std::size_t count_ = 0;             ///< elements in table_
  std::size_t mask_ = 0;              ///< table_.size() - 1 (a power of two less one), once made
  std::vector<reader> readers_;       ///< the reads since the last barrier
  std::vector<logged_access> log_;    ///< the running segment's first access of each element
  std::vector<shared_access> descriptions_; ///< those of log_'s accesses a report may name
  std::vector<unsigned char> bytes_;  ///< their bytes at that access
  std::vector<element> fill_now_;     ///< the elements views stored to in this launch
  std::vector<element> fill_before_;  ///< and in the launch before
  std::vector<element> fill_;         ///< both, merged (merge_fills)
  bool fill_changed_ = false;         ///< since fill_ was merged
  std::vector<std::uint32_t> warp_epochs_;
  std::vector<element> protected_;
  std::uint64_t epoch_ = 0;
  std::uint64_t segment_ = 0;
  std::uint64_t launch_ = 0;
  uint3 block_{};
  shared_race race_{};
  bool race_across_ = false; ///< race_ is between two warps
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
