// SPDX-License-Identifier: Apache-2.0
// The memory a PyTorch extension's kernels may touch through raw pointers, under emulation
// (cuguard.torch.load with checks on, or sanitize=True): every CPU tensor storage alive (fed by
// detail/adapters/torch_sanitize.hpp: the storages Torch allocates once the extension is loaded,
// each with 64 bytes on either side that nothing else holds, and the storages of the tensors an
// op is called with, for the call), and the storages freed whose memory is still held back from
// reuse (the allocator's quarantine). A T* converted to a cuguard::ptr takes its bounds from it
// (live_memory_hooks). Under sanitize=True the access hooks
// (access_hooks.hpp) check each load and store of a kernel's thread against it, to the byte: an
// access past the end or before the start of a storage, or into a freed one, is recorded as a
// violation of the thread (operation::raw_access) and stops it, as is one into the guarded region
// the storages lie apart in (guarded_arena.hpp) that no storage holds. Memory it does not know
// (the stack, globals, shared memory, allocations of other libraries) is not checked. A storage
// allocated fresh under sanitize=True holds the pattern unwritten_word in every byte nothing
// wrote since (initcheck): a kernel's read of a word that still holds it is an
// `uninitialized_read` record, as compute-sanitizer's initcheck reports a read of device memory
// never written; Torch's ops and host code write storages without passing through the access
// hooks, and a write of anything else changes the pattern.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/detail/runtime/launch_steps.hpp>
#include <cuguard/violation.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// A storage alive (or freed and still held back from reuse), as the access check knows it.
struct live_range {
  std::size_t bytes;
  std::size_t slack;         ///< bytes past its end (and before its start) that no other memory holds
  const char* what;          ///< "a tensor's storage"
  const char* label;         ///< the kernel argument that pointed into it at the last launch, or null
  const char* type;          ///< that argument's element type ("float"), or null
  std::size_t element_bytes; ///< its size (0: unknown: bytes)
  bool freed;                ///< freed, its memory held back (a quarantine): an access is a use after free
  bool lent;                 ///< known for a call only (lend), not from its allocation
  bool fresh;                ///< allocated holding unwritten_word in every byte (initcheck)
};

/// What a fresh storage's bytes hold until something writes them, 8 bytes at each 8-byte
/// boundary: a signalling NaN as a double, two NaNs as floats, NaNs among its halves; no
/// arithmetic gives it, and 64 bits of data hold it by chance once in 2^64.
inline constexpr std::uint64_t unwritten_word = 0xfff4dead7fb0c0deull;

/// Fills [p, p + n) with unwritten_word (by address: a byte at address a holds byte a % 8 of it).
inline void fill_unwritten(void* p, std::size_t n) noexcept {
  auto* b = static_cast<unsigned char*>(p);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::size_t i = 0;
  for (; i < n && (a + i) % 8 != 0; ++i) b[i] = static_cast<unsigned char>(unwritten_word >> (8 * ((a + i) % 8)));
  for (; i + 8 <= n; i += 8) std::memcpy(b + i, &unwritten_word, 8);
  for (; i < n; ++i) b[i] = static_cast<unsigned char>(unwritten_word >> (8 * ((a + i) % 8)));
}

/// The bytes of the read [a, a + n) of the storage [b, e) that nothing wrote: those of each
/// 8-byte word it overlaps that still holds unwritten_word whole (within the storage); a read of
/// fewer than 8 bytes is judged by its whole word, so that a byte's or a half's value of the
/// pattern written on purpose is not mistaken for it where its neighbours were written.
__attribute__((no_sanitize_address)) inline std::size_t unwritten_bytes(std::uintptr_t a, std::size_t n, std::uintptr_t b,
                                                                        std::uintptr_t e) noexcept {
  std::size_t count = 0;
  for (std::uintptr_t w = a & ~std::uintptr_t{7}; w < a + n; w += 8) {
    const std::uintptr_t lo = w < b ? b : w, hi = w + 8 > e ? e : w + 8;
    bool unwritten = true;
    for (std::uintptr_t x = lo; x < hi && unwritten; ++x)
      unwritten = *reinterpret_cast<const volatile unsigned char*>(x) == static_cast<unsigned char>(unwritten_word >> (8 * (x % 8)));
    if (unwritten) count += (hi < a + n ? hi : a + n) - (lo > a ? lo : a);
  }
  return count;
}

/// What an access is, against the live memory: bad (and why), or good, with the bytes around it
/// ([clean_begin, clean_end)) where every access is good while nothing is added or removed.
struct access_verdict {
  bool bad;
  std::uintptr_t begin; ///< bad: the storage's first byte
  live_range range;     ///< bad: the storage
  std::uintptr_t clean_begin, clean_end;
};

class live_memory {
 public:
  /// A storage of `bytes` bytes at `begin`, `slack` bytes around it free of other memory.
  /// `fresh`: its bytes hold unwritten_word (fill_unwritten).
  /// Freed storages held back whose memory it reuses are forgotten.
  void add(std::uintptr_t begin, std::size_t bytes, std::size_t slack, const char* what, bool fresh = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uintptr_t low = begin < slack ? 0 : begin - slack;
    auto it = ranges_.lower_bound(low);
    if (it != ranges_.begin() && std::prev(it)->first + std::prev(it)->second.bytes > low) it = std::prev(it);
    while (it != ranges_.end() && it->first < begin + bytes + slack)
      it = it->second.freed ? ranges_.erase(it) : std::next(it);
    ranges_[begin] = live_range{bytes, slack, what, nullptr, nullptr, 0, false, false, fresh};
    epoch_.fetch_add(1, std::memory_order_release);
  }
  /// A storage known for a call only (a tensor argument older than the allocator's wrapping),
  /// where no live storage is known at `begin` yet; true if it was added (unlend() ends it).
  bool lend(std::uintptr_t begin, std::size_t bytes, std::size_t slack, const char* what) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = ranges_.find(begin);
    if (it != ranges_.end() && !it->second.freed) return false;
    ranges_[begin] = live_range{bytes, slack, what, nullptr, nullptr, 0, false, true, false};
    epoch_.fetch_add(1, std::memory_order_release);
    return true;
  }
  /// The call a storage was lent for ended: forgotten, if it is still the one lent.
  void unlend(std::uintptr_t begin) { erase_if(begin, &live_range::lent); }
  /// The storage at `begin` freed: forgotten, or (`held`: its memory is held back from reuse
  /// until forget()) kept as freed, so that an access into it is a use after free.
  void remove(std::uintptr_t begin, bool held) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = ranges_.find(begin);
    if (it == ranges_.end()) return;
    if (held) it->second.freed = true;
    else ranges_.erase(it);
    epoch_.fetch_add(1, std::memory_order_release);
  }
  /// A freed storage's memory given back for reuse: forgotten.
  void forget(std::uintptr_t begin) { erase_if(begin, &live_range::freed); }
  /// Names the storage `p` points into (or one past): a kernel argument's label and element type.
  void name(const void* p, const char* label, const char* type, std::size_t element_bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ranges_.upper_bound(reinterpret_cast<std::uintptr_t>(p));
    if (it == ranges_.begin()) return;
    --it;
    if (reinterpret_cast<std::uintptr_t>(p) - it->first > it->second.bytes || it->second.freed) return;
    it->second.label = label;
    it->second.type = type;
    it->second.element_bytes = element_bytes;
  }
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  /// The storage alive that holds `p` (or ends where `p` is): true, and its first byte and size
  /// (and what it is, where `what` is given).
  bool holding(const void* p, std::uintptr_t& begin, std::size_t& bytes, const char** what = nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ranges_.upper_bound(reinterpret_cast<std::uintptr_t>(p));
    if (it == ranges_.begin()) return false;
    --it;
    if (reinterpret_cast<std::uintptr_t>(p) - it->first > it->second.bytes || it->second.freed) return false;
    begin = it->first;
    bytes = it->second.bytes;
    if (what != nullptr) *what = it->second.what;
    return true;
  }

  /// The verdict on `n` (> 0) bytes at `a`.
  __attribute__((no_sanitize_address)) access_verdict judge(std::uintptr_t a, std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    access_verdict v{false, 0, {}, 0, ~std::uintptr_t{0}};
    const auto next = ranges_.upper_bound(a);
    if (next != ranges_.begin()) {
      const auto below = std::prev(next);
      const std::uintptr_t b = below->first, e = b + below->second.bytes;
      const live_range& r = below->second;
      if (a < e && (r.freed || a + n > e)) return access_verdict{true, b, r, 0, 0}; // freed, or across its end
      if (a < e) return access_verdict{false, b, r, b, e};                          // inside
      if (!r.freed && a < e + r.slack) return access_verdict{true, b, r, 0, 0};      // past its end
      v.clean_begin = r.freed ? e : e + r.slack;
    }
    if (next != ranges_.end()) {
      const live_range& r = next->second;
      const std::uintptr_t low = next->first - (r.freed ? 0 : r.slack);
      if (a + n > low) return access_verdict{true, next->first, r, 0, 0}; // before its start, or into it
      v.clean_end = low;
    }
    // In the guarded region (guarded_arena.hpp) outside every storage: past the nearer one.
    if (a < guarded_end_ && a + n > guarded_begin_) {
      const bool has_below = next != ranges_.begin(), has_above = next != ranges_.end();
      const auto near = !has_above || (has_below && a - std::prev(next)->first <= next->first - a) ? std::prev(next) : next;
      if (has_below || has_above) return access_verdict{true, near->first, near->second, 0, 0};
      return access_verdict{false, 0, {}, 0, 0}; // (no storage at all: nothing to name; the access faults)
    }
    if (a < guarded_begin_ && v.clean_end > guarded_begin_) v.clean_end = guarded_begin_;
    if (a >= guarded_end_ && v.clean_begin < guarded_end_) v.clean_begin = guarded_end_;
    return v; // memory it does not know, between the storages around it
  }

  /// Storages are allocated in [begin, end) (guarded_arena.hpp): an access there that no storage
  /// holds is bad (an overrun into the gap after a storage), whatever its distance.
  void guard(std::uintptr_t begin, std::uintptr_t end) {
    std::lock_guard<std::mutex> lock(mutex_);
    guarded_begin_ = begin;
    guarded_end_ = end;
    epoch_.fetch_add(1, std::memory_order_release);
  }

 private:
  /// Forgets the storage at `begin` where its flag `which` is set.
  void erase_if(std::uintptr_t begin, bool live_range::*which) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = ranges_.find(begin);
    if (it == ranges_.end() || !(it->second.*which)) return;
    ranges_.erase(it);
    epoch_.fetch_add(1, std::memory_order_release);
  }
  std::mutex mutex_;
  std::map<std::uintptr_t, live_range> ranges_;
  std::uintptr_t guarded_begin_ = 0, guarded_end_ = 0;
  std::atomic<std::uint64_t> epoch_{1};
};

__attribute__((no_sanitize_address)) inline live_memory& live() {
  static live_memory* const m = new live_memory; // never destroyed: storages are freed late
  return *m;
}

/// Bytes around the calling thread's last good accesses where every access is good, while
/// nothing was added or removed since (`epoch`): a kernel's loop reads and writes a few storages
/// in turn, each its own entry.
struct clean_bytes {
  static constexpr int size = 8;
  struct entry {
    std::uintptr_t begin, end;
    bool fresh; ///< a fresh storage's bytes (a read is checked for unwritten_word)
  };
  entry entries[size] = {};
  int next = 0;
  std::uint64_t epoch = 0;
};
inline thread_local clean_bytes last_clean;

/// Fills `v` with the raw access of `n` bytes at `a` into the storage `r` at `begin` (see
/// append_raw_access): its kind, `write` (value) and the bytes from the storage's start (value_end).
__attribute__((no_sanitize_address)) inline void describe_raw_access(violation& v, violation_kind kind, std::uintptr_t a,
                                                                     std::size_t n, bool write, std::uintptr_t begin,
                                                                     const live_range& r) {
  const auto eb = static_cast<std::int64_t>(r.element_bytes != 0 ? r.element_bytes : 1);
  const auto offset = static_cast<std::int64_t>(a - begin); // negative before the start
  v.kind = kind;
  v.op = operation::raw_access;
  copy_text(v.label, r.label != nullptr ? r.label : r.what);
  copy_text(v.type, r.type != nullptr ? r.type : "uint8");
  v.rank = 1;
  v.dim = 0;
  v.index[0] = offset >= 0 ? offset / eb : -((-offset + eb - 1) / eb);
  v.extent[0] = static_cast<std::int64_t>(r.bytes) / eb;
  v.stride[0] = 1;
  v.address = static_cast<std::int64_t>(a);
  v.bytes = static_cast<std::int64_t>(n);
  v.value = write ? 1 : 0;
  v.value_end = offset;
  v.alloc_bytes = static_cast<std::int64_t>(r.bytes);
  copy_text(v.alloc_label, r.what);
  v.space = memory_space::device;
}

/// Records a bad raw access of the running kernel thread `t` (see append_raw_access) and stops
/// the thread, as a violation stops it (`before_stop()` first).
template <class BeforeStop>
[[noreturn]] void raw_access_failed(const platform::emulated_thread& t, std::uintptr_t a, std::size_t n, bool write,
                                    const void* pc, const access_verdict& bad, BeforeStop before_stop) {
  const violation_kind kind = bad.range.freed ? violation_kind::use_after_free : violation_kind::out_of_bounds;
  backend::record_thread_finding(t, pc, [&](violation& v) { describe_raw_access(v, kind, a, n, write, bad.begin, bad.range); },
                                 current_device_state<void>());
  before_stop();
  t.engine->exit_thread(t.runner); // as a violation stops a thread: the grid goes on
  __builtin_unreachable();
}

/// Records that the running kernel thread `t` read, at `pc`, `n` bytes at `a` of a fresh storage,
/// `unwritten` of which nothing wrote since the storage was allocated (initcheck, as
/// append_uninitialized_read says it: the thread goes on).
__attribute__((no_sanitize_address)) inline void record_unwritten_read(const platform::emulated_thread& t, std::uintptr_t a,
                                                                       std::size_t n, std::size_t unwritten, const void* pc) {
  const access_verdict where = live().judge(a, n);
  backend::record_thread_finding(t, pc, [&](violation& v) {
    describe_raw_access(v, violation_kind::uninitialized_read, a, n, false, where.begin, where.range);
    v.limit = static_cast<std::int64_t>(unwritten);
  }, current_device_state<void>());
}

/// Checks `n` (> 0) bytes at `a` of the running kernel thread `t` (its access at `pc`) against
/// the live memory; a bad one stops the thread (`before_stop()` first); a read of bytes of a fresh
/// storage that nothing wrote is recorded (record_unwritten_read).
template <class BeforeStop>
__attribute__((no_sanitize_address)) void check_live_access(const platform::emulated_thread& t, std::uintptr_t a, std::size_t n, bool write, const void* pc,
                       BeforeStop before_stop) {
  live_memory& m = live();
  const std::uint64_t epoch = m.epoch();
  clean_bytes& clean = last_clean;
  const clean_bytes::entry* hit = nullptr;
  if (clean.epoch == epoch) {
    for (const clean_bytes::entry& e : clean.entries)
      if (a >= e.begin && a + n <= e.end && a + n > a) {
        hit = &e;
        break;
      }
  } else {
    clean = clean_bytes{};
    clean.epoch = epoch;
  }
  if (hit == nullptr) {
    const access_verdict v = m.judge(a, n);
    if (v.bad) raw_access_failed(t, a, n, write, pc, v, before_stop);
    hit = &(clean.entries[clean.next] = clean_bytes::entry{v.clean_begin, v.clean_end, v.range.fresh});
    clean.next = (clean.next + 1) % clean_bytes::size;
  }
  if (!write && hit->fresh)
    if (const std::size_t unwritten = unwritten_bytes(a, n, hit->begin, hit->end)) record_unwritten_read(t, a, n, unwritten, pc);
}

/// Names the storage a kernel's pointer argument points into, at its launch.
inline void name_pointer_argument(const void* p, const char* label, const char* type, std::size_t element_bytes) {
  live().name(p, label, type, element_bytes);
}

/// Makes cuguard::launch name each pointer argument's storage (once, in a sanitized build).
inline const bool pointer_arguments_named = (pointer_argument_hook = &name_pointer_argument, true);

/// The live storages as allocations a host pointer may lie in (a T* converted to a cuguard::ptr:
/// its bounds), behind the tracked allocations (which carry a lifetime token). A CPU tensor's
/// storage is memory host code and emulated kernels both touch, as a view of it says.
class live_memory_hooks final : public host_hooks {
 public:
  allocation_span locate(const void* p, std::size_t bytes) const override {
    allocation_span found = host_hooks::locate(p, bytes);
    std::uintptr_t begin = 0;
    std::size_t size = 0;
    if (found.tracked || !live().holding(p, begin, size)) return found;
    found.tracked = true;
    found.begin = begin;
    found.bytes = size;
    found.space = memory_space::managed;
    found.device = 0;
    return found;
  }
  bool describe_memory(std::uintptr_t address, violation& v) const override {
    std::uintptr_t begin = 0;
    std::size_t size = 0;
    const char* what = nullptr;
    if (!live().holding(reinterpret_cast<const void*>(address), begin, size, &what) || what == nullptr)
      return host_hooks::describe_memory(address, v);
    copy_text(v.alloc_label, what);
    v.alloc_bytes = static_cast<std::int64_t>(size);
    return true;
  }
};
inline const bool live_memory_located = install_static_hooks<live_memory_hooks>(); // never destroyed, as the live memory

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
