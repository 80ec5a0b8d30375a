// SPDX-License-Identifier: Apache-2.0
// Emulation's shared-memory race detector: which thread of a block touched which element of
// shared memory (reached through a checked view) since the block's last barrier.
//
// The threads of a block run one at a time on one OS thread, each until it waits at a barrier
// or a warp-wide operation, or returns (a segment). Within a segment nothing but the running
// thread changes shared memory, so what it wrote is what differs from what the element held at
// its first access. Two accesses of one element by two threads race when one of them wrote it
// and no barrier orders them: no __syncthreads() since both, and for two lanes of one warp no
// __syncwarp() (or warp-wide operation) either. An element changed only by atomics races with
// nothing.
//
// Most elements are touched by one thread between two barriers (a tile's element is stored by
// one thread, and read by another after the barrier): such an element costs a lookup and, at its
// first access, a copy of its value (race_cells.hpp); what that thread did is worked out only
// where a second thread comes, and nothing is done for it at the barrier. From the second
// accessor on, each segment logs the element's value at its first access, and at the segment's
// end the element's writer and readers since the barrier are kept.
//
// A store known as one (a raw pointer's, under SANITIZE's access hooks, or a view's store<N>)
// that leaves the element's bytes as they were is neither a write nor a read: every thread of a
// block copying one table into shared memory stores the same values in any order, and racecheck
// reports no hazard there. A store through a reference (a view's operator[]) that leaves the
// bytes as they were is not seen as a write (it is a read); so that a block's
// stores show even when they store what an earlier block (or launch) left there, the elements
// that views stored to in this launch or the last one are filled with 0xCD bytes at the start of
// each block, as a GPU leaves shared memory undefined there. Elements are told apart by address:
// views of one array with element types of other sizes are not held against each other.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/race_cells.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/violation.hpp>

#include <vector_types.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// A source position, and one access to shared memory through a checked view as a race report
/// names it: the device seam's (detail/platform/emulated_thread.hpp), which views fill in.
using source_site = platform::source_site;
using shared_access = platform::shared_access;
using describe_access = platform::describe_access;
using access_kind = platform::access_kind;

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
    fill_.begin_grid(outside);
    if (old_bytes != 0) cells_.keep_only([&](const race_cell& c) { return outside(c.addr, c.bytes); });
  }

  /// Where the block's shared memory lies: `shared.holds(address, bytes)` says whether an element
  /// lies in it whole (an element outside is not followed: an oversized view). `shared` outlives
  /// this detector's accesses.
  template <class Shared>
  void watch(const Shared& shared) noexcept {
    holds_ = [](const void* s, std::uintptr_t a, std::size_t n) { return static_cast<const Shared*>(s)->holds(a, n); };
    shared_ = &shared;
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
    forget_segment(); // what a thread of the last block logged is no segment of this one
    warp_sync_.assign((threads + 31) / 32, 0);
    fill_.apply();
  }

  /// Every live thread of the block passed a __syncthreads(): what came before is ordered.
  void block_barrier() noexcept { new_epoch(); }
  /// The lanes of warp `w` passed a warp barrier together.
  void warp_barrier(unsigned w) noexcept { warp_sync_[w] = ++sync_; }

  /// The running thread `t` accesses (`kind`) `count` elements of `bytes` each from `p` (a vector
  /// access counts its elements one by one) at `site`. `describe(a, context)` fills in the access, as
  /// a report would name it, where a report may need it: where another thread's access of the
  /// element since the last barrier is known (the index it gives is the first element's). An
  /// element one thread alone touched since the barrier costs a lookup, and at that thread's
  /// first access a copy of its value. An element is watched only where it lies in shared memory
  /// whole (watch()).
  void access(unsigned t, void* p, std::size_t bytes, int count, access_kind kind, const source_site& site,
              describe_access describe, const void* context) {
    if (!dirty_) { // the segment's first access: its thread's stamp
      stamp_ = (sync_state(t) << 10) | t; // threads < 1024
      dirty_ = true;
    }
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const bool store = kind == access_kind::store;
    if (CUGUARD_IMPL_UNLIKELY(count != 1 || !settled(at, store, site)))
      unsettled(at, bytes, count, store, site, describe, context);
  }

  /// The running thread runs an atomic operation on `p`: if a view reached the element that
  /// holds `p` in this segment, the change is the atomic's (atomics race with nothing).
  void atomic(const void* p) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (!dirty_ || holds_ == nullptr || !holds_(shared_, a, 1)) return; // (global memory: no lookups)
    const std::size_t i = cells_.find(a);
    if (i != race_cells::npos && mark_atomic(cells_[i])) return;
    for (std::uintptr_t k = 1; k < sizeof(race_cell::before) && k <= a; ++k) { // a member of an element
      const std::size_t j = cells_.find(a - k);
      if (j != race_cells::npos && cells_[j].bytes > k && mark_atomic(cells_[j])) return;
    }
    for (logged_access& l : log_) // of a large element, or a part of a vector
      if (a >= l.addr && a - l.addr < l.bytes) {
        l.atomic = true;
        return;
      }
  }

  /// The running thread `t` stops running (it waits, or returned): what it wrote is known now.
  /// Inline where that needs no look: it touched no element (every thread with checks off), or
  /// only elements of one accessor whose stores are filled in this launch already (a segment
  /// that logged no element needs no number of its own).
  void end_segment(unsigned t) {
    if (!dirty_) return;
    if (!touched_.empty() || !log_.empty()) return end_touching_segment(t);
    dirty_ = false;
    stamp_ = 0;
  }

  /// The grid's first race between two warps, else its first race (found false: none).
  const shared_race& first() const noexcept { return race_; }

 private:
  using element = pattern_fill::element;
  /// An element the running segment was the first to touch since the barrier, not stored to
  /// through a view in this launch yet.
  struct touched {
    std::uintptr_t addr;
    std::size_t cell;
  };
  /// True where `c` is the running segment's own, marked changed by an atomic.
  bool mark_atomic(race_cell& c) noexcept {
    if (c.stamp == stamp_) {
      c.atomic = true;
      return true;
    }
    if (c.stamp == race_cell::many && c.logged == segment_ + 1) {
      log_[c.log].atomic = true;
      return true;
    }
    return false;
  }

  /// True where the access of the element at `addr` needs no more than its cell (access()):
  /// an element this thread touched in this sync state, or one no thread touched since the
  /// barrier, small enough to copy into its cell.
  bool settled(std::uintptr_t addr, bool store, const source_site& site) {
    const std::size_t i = cells_.find(addr);
    if (i == race_cells::npos) return false;
    race_cell& c = cells_[i];
    if (c.stamp == stamp_) { // this thread touched it in this sync state already
      c.only_stores = c.only_stores && store;
      if (!c.store_seen) touched_again(c, site);
      return true;
    }
    if (c.epoch == epoch_ || c.bytes > sizeof c.before) return false;
    first_access(c, i, store, site);
    return true;
  }

  /// Element `c` touched again by its one accessor, no store of it seen yet: an access is seen
  /// before it is made, so a change seen now was made by the last access, whose site the cell
  /// holds and keeps; else the cell holds this one's.
  __attribute__((noinline)) static void touched_again(race_cell& c, const source_site& site) {
    if (element_changed(c.before, reinterpret_cast<const void*>(c.addr), c.bytes)) c.store_seen = true;
    else c.site = site;
  }

  /// The first access of element `c` (cell i) since the barrier, by the running thread, of an
  /// element small enough to copy into the cell: its one accessor so far.
  void first_access(race_cell& c, std::size_t i, bool store, const source_site& site) {
    c.epoch = epoch_;
    c.stamp = stamp_;
    c.site = site;
    c.store_seen = false;
    c.atomic = false;
    c.only_stores = store;
    copy_element(c.before, reinterpret_cast<const void*>(c.addr), c.bytes);
    if (c.written_launch != launch_) touched_.push_back(touched{c.addr, i}); // a store may need the fill
  }

  /// access() of a single element it did not settle, or of a vector's elements, one by one (out
  /// of line: the single element's path, the usual one, then keeps nothing across a call).
  __attribute__((noinline)) void unsettled(std::uintptr_t at, std::size_t bytes, int count, bool store,
                                           const source_site& site, describe_access describe, const void* context) {
    for (int k = 0; k < count; ++k) {
      const std::uintptr_t addr = at + static_cast<std::size_t>(k) * bytes;
      if (count == 1 || !settled(addr, store, site)) other_access(addr, bytes, k, store, site, describe, context);
    }
  }

  /// An access settled() does not settle: of an element not seen before, of one another
  /// accessor touched since the barrier, or the first of a large element.
  void other_access(std::uintptr_t addr, std::size_t bytes, int k, bool store, const source_site& site,
                    describe_access describe, const void* context) {
    std::size_t i = cells_.find(addr);
    if (i == race_cells::npos) {
      if (holds_ == nullptr || !holds_(shared_, addr, bytes) || is_protected(addr, bytes)) return;
      i = insert(addr, bytes);
    }
    race_cell& c = cells_[i];
    if (c.epoch != epoch_) { // the first access since the barrier
      if (c.bytes <= sizeof c.before) return first_access(c, i, store, site);
      c.epoch = epoch_;
      c.writer = -1;
      c.readers = -1;
      c.stamp = race_cell::many; // a large element: logged at each segment's first access
    } else if (c.stamp != race_cell::many) {
      promote(c);
    }
    log(c, i, k, store, site, describe, context);
  }

  /// A second accessor meets element `c`: what its one accessor did becomes a reader or the
  /// writer since the barrier (what it wrote is what differs from its copy); an accessor whose
  /// change was an atomic's is neither, nor one whose accesses were all stores of what it held.
  void promote(race_cell& c) {
    const int owner = static_cast<int>(c.stamp & 1023u);
    const std::uint64_t sync = c.stamp >> 10;
    c.stamp = race_cell::many;
    c.writer = -1;
    c.readers = -1;
    if (c.atomic) return;
    if (element_changed(c.before, reinterpret_cast<const void*>(c.addr), c.bytes)) {
      c.writer = owner;
      c.writer_sync = sync;
      c.writer_site = c.site; // (its store, or, a change not seen yet, its last access: the store)
      stored(c);
    } else if (!c.only_stores) {
      readers_.push_back(race_reader{owner, sync, c.site, -1});
      c.readers = static_cast<int>(readers_.size() - 1);
    }
  }

  /// The running segment's first access of element `c` (cell i) of more than one accessor:
  /// its value now, to be compared at the segment's end.
  void log(race_cell& c, std::size_t i, int k, bool store, const source_site& site, describe_access describe,
           const void* context) {
    if (c.logged == segment_ + 1) { // this segment has its value already
      log_[c.log].only_stores = log_[c.log].only_stores && store;
      return;
    }
    c.logged = segment_ + 1;
    c.log = log_.size();
    int description = -1;
    // A race of this access is found at the segment's end against the accesses the element
    // has now (no other thread runs before): none since the barrier, no race, no description.
    if (c.writer >= 0 || c.readers >= 0) {
      description = static_cast<int>(descriptions_.size());
      descriptions_.emplace_back();
      describe(descriptions_.back(), context);
      descriptions_.back().index[descriptions_.back().rank - 1] += k;
    }
    logged_access& l = log_.emplace_back();
    l.addr = c.addr;
    l.cell = i;
    l.bytes = c.bytes;
    l.atomic = false;
    l.only_stores = store;
    l.description = description;
    l.site = site;
    const auto* from = reinterpret_cast<const unsigned char*>(c.addr);
    if (c.bytes <= sizeof l.small) {
      copy_element(l.small, from, c.bytes);
    } else {
      l.snapshot = bytes_.size();
      bytes_.insert(bytes_.end(), from, from + c.bytes);
    }
  }

  /// end_segment's work where the segment touched an element (touched_ or log_).
  __attribute__((noinline)) void end_touching_segment(unsigned t) {
    for (const touched& e : touched_) { // one accessor: a store of it is filled at block starts
      race_cell& c = cells_[e.cell];
      if (c.written_launch != launch_ && c.stamp == stamp_ && !c.atomic &&
          element_changed(c.before, reinterpret_cast<const void*>(c.addr), c.bytes))
        stored(c);
    }
    const std::uint64_t my_sync = stamp_ >> 10;
    for (const logged_access& l : log_) {
      race_cell& c = cells_[l.cell];
      if (l.atomic) continue;
      const bool wrote = element_changed(l.bytes <= sizeof l.small ? l.small : bytes_.data() + l.snapshot,
                                 reinterpret_cast<const void*>(l.addr), l.bytes);
      if (!wrote && l.only_stores) continue; // stores of what it held: no read, no write
      if (c.writer >= 0 && !ordered(c.writer, c.writer_sync, t))
        found(t, wrote ? race_order::write_after_write : race_order::read_after_write, l, c.writer, c.writer_site);
      if (wrote) {
        for (int r = c.readers; r >= 0 && !(race_.found && race_across_); r = readers_[static_cast<std::size_t>(r)].next) {
          const race_reader& e = readers_[static_cast<std::size_t>(r)];
          if (!ordered(e.thread, e.sync, t)) found(t, race_order::write_after_read, l, e.thread, e.site);
        }
        c.writer = static_cast<int>(t);
        c.writer_sync = my_sync;
        c.writer_site = l.site;
        stored(c);
      } else {
        readers_.push_back(race_reader{static_cast<int>(t), my_sync, l.site, c.readers});
        c.readers = static_cast<int>(readers_.size() - 1);
      }
    }
    forget_segment();
  }

  /// A view stored to `c`: it is filled with the pattern at the next block starts.
  void stored(race_cell& c) {
    if (c.written_launch == launch_) return;
    c.written_launch = launch_;
    fill_.add(c.addr, c.bytes);
  }

  void forget_segment() noexcept {
    touched_.clear();
    log_.clear();
    bytes_.clear();
    descriptions_.clear();
    dirty_ = false;
    stamp_ = 0; // no cell's
    ++segment_;
  }

  std::size_t insert(std::uintptr_t addr, std::size_t bytes) {
    const std::size_t capacity = cells_.capacity();
    const std::size_t i = cells_.insert(addr, bytes);
    if (cells_.capacity() != capacity) { // the running segment's cells moved
      for (touched& e : touched_) e.cell = cells_.find(e.addr);
      for (logged_access& l : log_) l.cell = cells_.find(l.addr);
    }
    return i;
  }

  void new_epoch() noexcept {
    epoch_ = ++sync_;
    readers_.clear();
  }

  /// The sync state of thread t: the later of its block's last barrier and its warp's.
  std::uint64_t sync_state(unsigned t) const noexcept { return std::max(epoch_, warp_sync_[t / 32]); }

  /// True if an access of thread `a` in sync state `s` comes before thread `b`'s (both in this
  /// block epoch: a warp barrier since, for two lanes of one warp).
  bool ordered(int a, std::uint64_t s, unsigned b) const noexcept {
    const auto ua = static_cast<unsigned>(a);
    return ua == b || (ua / 32 == b / 32 && sync_state(ua) != s);
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

  bool is_protected(std::uintptr_t addr, std::size_t bytes) const noexcept {
    for (const element& e : protected_)
      if (addr < e.addr + e.bytes && e.addr < addr + bytes) return true;
    return false;
  }

  race_cells cells_;                  ///< every element views reached
  std::vector<race_reader> readers_;  ///< the reads since the last barrier of elements of more than one accessor
  std::vector<touched> touched_;      ///< the running segment's elements of one accessor, where the fill may need them
  std::vector<logged_access> log_;    ///< its first access of each element of more than one
  std::vector<shared_access> descriptions_; ///< those of log_'s accesses a report may name
  std::vector<unsigned char> bytes_;  ///< their bytes at that access, where they do not fit in small
  bool dirty_ = false;                ///< the running segment touched an element (stamp_ is its thread's)
  pattern_fill fill_;                 ///< the elements views stored to in this launch and the last
  /// Sync states: each block barrier and each warp barrier is the next number; a thread's state
  /// is the later of its block's (epoch_) and its warp's (warp_sync_): sync_state().
  std::uint64_t sync_ = 0;
  std::uint64_t epoch_ = 0;
  std::vector<std::uint64_t> warp_sync_;
  std::uint64_t stamp_ = 0;           ///< the running thread's stamp, (its sync state << 10) | thread, where dirty_
  bool (*holds_)(const void* shared, std::uintptr_t addr, std::size_t bytes) = nullptr; ///< watch()
  const void* shared_ = nullptr;
  std::vector<element> protected_;
  std::uint64_t segment_ = 0;
  std::uint64_t launch_ = 0;
  uint3 block_{};
  shared_race race_{};
  bool race_across_ = false; ///< race_ is between two warps
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
