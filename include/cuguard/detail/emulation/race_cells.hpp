// SPDX-License-Identifier: Apache-2.0
// What emulation's race detector (race_detector.hpp) keeps of the elements of shared memory that
// views reached: each one's cell, found by address (an open-addressing table that lives as long
// as its OS thread's grid runner: elements keep their place across blocks and launches), and
// the pattern that the elements views stored to are filled with at each block's start; its
// reads and log entries; and how an element's bytes are copied and compared.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

// An element's bytes, copied and compared: the usual sizes inline (calls of memcpy and memcmp
// were a tenth of a checked transpose's instructions). Not instrumented under SANITIZE: a load of
// shared memory here would reach the access hooks, and through them the race detector.
template <class Word>
__attribute__((no_sanitize_address)) inline Word element_word(const void* p) noexcept {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
template <class Word>
inline void put_element_word(void* to, Word w) noexcept {
  std::memcpy(to, &w, sizeof w);
}
/// Copies the element of `bytes` at `from` to `to`.
inline void copy_element(unsigned char* to, const void* from, std::size_t bytes) noexcept {
  switch (bytes) {
  case 4: return put_element_word(to, element_word<std::uint32_t>(from));
  case 8: return put_element_word(to, element_word<std::uint64_t>(from));
  case 2: return put_element_word(to, element_word<std::uint16_t>(from));
  case 1: return put_element_word(to, element_word<std::uint8_t>(from));
  default: std::memcpy(to, from, bytes);
  }
}
/// True if the element of `bytes` at `now` differs from its copy `before`.
inline bool element_changed(const void* before, const void* now, std::size_t bytes) noexcept {
  switch (bytes) {
  case 4: return element_word<std::uint32_t>(before) != element_word<std::uint32_t>(now);
  case 8: return element_word<std::uint64_t>(before) != element_word<std::uint64_t>(now);
  case 2: return element_word<std::uint16_t>(before) != element_word<std::uint16_t>(now);
  case 1: return element_word<std::uint8_t>(before) != element_word<std::uint8_t>(now);
  default: return std::memcmp(before, now, bytes) != 0;
  }
}

/// One element in the block epoch `epoch` (the accesses since the block's last barrier). While
/// one thread alone, in one sync state, touched it (`stamp` is that thread's), its value at that
/// thread's first access and where are kept here, and nothing else is done: what that thread did
/// is looked at only where another access comes (race_detector's promote) or that thread's
/// segment ends. Once two accessors met (`stamp` many), each segment logs its first access and
/// the writer and the readers since the barrier are kept.
struct race_cell {
  static constexpr std::uint64_t many = ~std::uint64_t{0};
  std::uintptr_t addr = 0;          ///< 0: empty
  std::size_t bytes = 0;
  std::uint64_t stamp = 0;          ///< its one accessor's sync state and thread (race_detector's stamp_), or many
  std::uint64_t epoch = 0;          ///< the block epoch all below belongs to
  unsigned char before[16];         ///< one accessor: the element at its first access
  platform::source_site site;       ///< one accessor: where it touched it last, or its store once one was seen
  bool atomic = false;              ///< one accessor: an atomic operation touched it
  bool store_seen = false;          ///< one accessor: the element changed since its first access (site: the store)
  bool only_stores = false;         ///< one accessor: each of its accesses was known as a store
  std::uint64_t logged = 0;         ///< many: segment + 1 in which it was logged last
  std::uint64_t written_launch = 0; ///< the launch a view last stored to it in
  std::size_t log = 0;              ///< many: its entry in the segment's log (when logged in this segment)
  int writer = -1;                  ///< many: the last thread that stored to it (-1: none; set where many begins)
  std::uint64_t writer_sync = 0;
  platform::source_site writer_site{};
  int readers = -1;                 ///< many: its last reader in the detector's readers (-1: none), the others chained
};

/// A read of an element since the last barrier (every one is kept until the next barrier).
struct race_reader {
  int thread;
  std::uint64_t sync;
  platform::source_site site;
  int next; ///< the reader before (-1: none)
};

/// The running segment's first access of an element of more than one accessor (race_detector's
/// log).
struct logged_access {
  logged_access() noexcept {} // each field is written as the access is logged: none zeroed first
  std::uintptr_t addr;
  std::size_t cell;        ///< its element's (kept where the table grows)
  unsigned char small[16]; ///< its bytes at the first access, where they fit
  std::size_t snapshot;    ///< else their offset in the detector's bytes_
  std::size_t bytes;
  bool atomic;
  bool only_stores; ///< every access of the segment to it was known as a store
  int description;  ///< the access as a report names it, in the detector's descriptions_ (-1: none needed)
  platform::source_site site; ///< where it was
};

/// The cells, by element address (open addressing, linear probing, at most half full).
class race_cells {
 public:
  static constexpr std::size_t npos = ~std::size_t{0};

  race_cell& operator[](std::size_t i) noexcept { return table_[i]; }
  const race_cell& operator[](std::size_t i) const noexcept { return table_[i]; }

  /// 128 empty cells: a lookup needs no test of an empty table.
  race_cells() : table_(128), mask_(127) {}

  /// The cell of the element at `addr`, or npos.
  std::size_t find(std::uintptr_t addr) const noexcept {
    for (std::size_t i = hash(addr, mask_);; i = (i + 1) & mask_) {
      if (table_[i].addr == addr) return i;
      if (table_[i].addr == 0) return npos;
    }
  }

  /// A new cell for the element of `bytes` at `addr` (not in the table). Where the table grows
  /// (capacity() changes), every cell moves.
  std::size_t insert(std::uintptr_t addr, std::size_t bytes) {
    if ((count_ + 1) * 2 > table_.size()) grow();
    std::size_t i = hash(addr, mask_);
    while (table_[i].addr != 0) i = (i + 1) & mask_;
    table_[i].addr = addr;
    table_[i].bytes = bytes;
    ++count_;
    return i;
  }

  /// The cells the table has room for (a power of two).
  std::size_t capacity() const noexcept { return table_.size(); }

  /// Only the cells that `keep(cell)` keeps, with nothing but their written_launch (a launch
  /// whose dynamic shared memory moved); the table is left as it is where all are kept.
  template <class Keep>
  void keep_only(const Keep& keep) {
    bool any = false;
    for (const race_cell& c : table_) any = any || (c.addr != 0 && !keep(c));
    if (!any) return;
    std::vector<race_cell> old(table_.size());
    old.swap(table_);
    count_ = 0;
    for (const race_cell& c : old)
      if (c.addr != 0 && keep(c)) table_[insert(c.addr, c.bytes)].written_launch = c.written_launch;
  }

 private:
  static std::size_t hash(std::uintptr_t addr, std::size_t mask) noexcept {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(addr) * 0x9e3779b97f4a7c15ull) >> 17) & mask;
  }
  void grow() {
    std::vector<race_cell> old(table_.size() * 2);
    old.swap(table_);
    mask_ = table_.size() - 1;
    for (const race_cell& c : old) {
      if (c.addr == 0) continue;
      std::size_t i = hash(c.addr, mask_);
      while (table_[i].addr != 0) i = (i + 1) & mask_;
      table_[i] = c;
    }
  }

  std::vector<race_cell> table_;
  std::size_t count_ = 0; ///< cells in table_
  std::size_t mask_ = 0;  ///< table_.size() - 1 (a power of two less one)
};

/// The elements views stored to in this launch and the last, filled with 0xCD bytes at each
/// block's start (as a GPU leaves shared memory undefined there), so that a store shows even
/// where it stores what an earlier block or launch left there.
class pattern_fill {
 public:
  struct element {
    std::uintptr_t addr;
    std::size_t bytes;
  };

  /// A new launch: what the last one stored is kept but where `outside(addr, bytes)` is false.
  template <class Outside>
  void begin_grid(const Outside& outside) {
    before_.clear();
    for (const element& e : now_)
      if (outside(e.addr, e.bytes)) before_.push_back(e);
    now_.clear();
    changed_ = true;
  }
  /// A view stored to the element of `bytes` at `addr` (once a launch).
  void add(std::uintptr_t addr, std::size_t bytes) {
    now_.push_back(element{addr, bytes});
    changed_ = true;
  }
  /// Fills every element with the pattern.
  void apply() {
    if (changed_) merge();
    for (const element& e : ranges_) std::memset(reinterpret_cast<void*>(e.addr), 0xCD, e.bytes);
  }

 private:
  /// before_ and now_ as the fewest ranges, in address order: one memset for the elements of a
  /// row of a tile where there was one for each element (a checked transpose's block began with
  /// 2,112 calls of memset for 4 bytes each).
  void merge() {
    ranges_.assign(before_.begin(), before_.end());
    ranges_.insert(ranges_.end(), now_.begin(), now_.end());
    std::sort(ranges_.begin(), ranges_.end(), [](const element& a, const element& b) { return a.addr < b.addr; });
    std::size_t kept = 0; // ranges in ranges_[0, kept)
    for (std::size_t i = 0; i < ranges_.size(); ++i) {
      const element e = ranges_[i];
      element* last = kept > 0 ? &ranges_[kept - 1] : nullptr;
      if (last != nullptr && e.addr <= last->addr + last->bytes) // touches or overlaps the range before
        last->bytes = std::max(last->bytes, e.addr + e.bytes - last->addr);
      else
        ranges_[kept++] = e;
    }
    ranges_.resize(kept);
    changed_ = false;
  }

  std::vector<element> now_;    ///< the elements views stored to in this launch
  std::vector<element> before_; ///< and in the launch before
  std::vector<element> ranges_; ///< both, merged (merge)
  bool changed_ = false;        ///< since ranges_ was merged
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
