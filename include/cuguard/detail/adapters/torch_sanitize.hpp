// SPDX-License-Identifier: Apache-2.0
// What cuguard.torch.load compiles into an extension built under emulation with checks on (or
// sanitize=True), in one translation unit of its own: the live memory (detail/runtime/live_memory.hpp)
// that a T* converted to a cuguard::ptr takes its bounds from, and that sanitize=True checks
// kernels' raw accesses against. Torch's CPU allocator is wrapped as the extension
// loads, so that every storage allocated from then on is known from its allocation to its free,
// with 64 bytes on either side that nothing else holds, and its memory is held back from reuse
// for a while once freed (the last 256 MiB of storages freed); under sanitize=True its bytes
// hold a pattern until something writes them (initcheck: live_memory.hpp's unwritten_word, off
// with CUGUARD_EMULATION_INITCHECK=0); and Python tells, around each call of
// the extension's functions, the storages of the tensors it is called with (cuguard/torch.py),
// which may be older.
#pragma once

#include <cuguard/config.hpp>
#if !CUGUARD_IMPL_EMULATION || !CUGUARD_IMPL_SANITIZE_STORAGES
#  error "<cuguard/detail/adapters/torch_sanitize.hpp> is for cuguard.torch's emulated builds with checks on or sanitize=True"
#endif
#include <cuguard/emulated_runtime.hpp> // IWYU pragma: export (the access callbacks, defined here at least once)
#include <cuguard/check.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/violation_error.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/runtime/live_memory.hpp>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <utility>

// Torch 2.3 made Allocator::allocate non-const and copy_data a duty of every allocator.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#  define CUGUARD_IMPL_TORCH_ALLOCATE_CONST
#  define CUGUARD_IMPL_TORCH_COPY_DATA 1
#else
#  define CUGUARD_IMPL_TORCH_ALLOCATE_CONST const
#  define CUGUARD_IMPL_TORCH_COPY_DATA 0
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

inline constexpr const char* storage_what = "a tensor's storage";

/// Initcheck of storages: asked for by a sanitized extension as it loads (sanitize=True: its
/// access hooks read the kernels' loads), off with CUGUARD_EMULATION_INITCHECK=0. One flag for
/// the process: the allocator is wrapped once, by the first extension of cuguard's loaded (the
/// guard of cpu_allocator_wrapped, a unique symbol, is shared), which need not be a sanitized one.
inline std::atomic<bool> storages_initcheck_asked{false};
inline bool storages_initcheck_on() {
  if (!storages_initcheck_asked.load(std::memory_order_relaxed)) return false;
  static const bool allowed = [] {
    const char* value = platform::environment(platform::setting::emulation_initcheck);
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return allowed;
}
#if CUGUARD_IMPL_ACCESS_HOOKS
/// (internal linkage: set by every sanitized extension's own copy as it loads)
static const bool storages_initcheck_asked_here = (storages_initcheck_asked.store(true), true);
#endif

/// Torch's CPU allocator, wrapped: each storage it hands out is known to the live memory, with
/// `redzone` bytes on either side that belong to no storage.
class tracking_allocator final : public c10::Allocator {
 public:
  static constexpr std::size_t redzone = 64; // (keeps the 64-byte alignment of Torch's storages)

  explicit tracking_allocator(c10::Allocator* inner) : inner_(inner) {}

  // The storage's context is its data, as the default allocator's is (raw_allocate, which
  // oneDNN's glue uses, requires it): the block it belongs to is found from the first bytes of
  // the red zone before it, which only this allocator writes.
  // A storage of no bytes is the wrapped allocator's (a null pointer, as Torch's CPU allocator
  // gives it): kernels test an absent input as `p != nullptr`.
  c10::DataPtr allocate(std::size_t n) CUGUARD_IMPL_TORCH_ALLOCATE_CONST override {
    if (n == 0) return inner_->allocate(0);
    c10::DataPtr inner = inner_->allocate(n + 2 * redzone);
    const c10::Device device = inner.device();
    auto* held = new held_block{std::move(inner), nullptr, n};
    char* const first = static_cast<char*>(held->inner.get());
    held->data = first + redzone;
    std::memcpy(first, &held, sizeof held);
    const bool fresh = storages_initcheck_on();
    if (fresh) emulated_runtime::fill_unwritten(held->data, n); // (what a kernel's read finds unwritten)
    emulated_runtime::live().add(reinterpret_cast<std::uintptr_t>(held->data), n, redzone, storage_what, fresh);
    return {held->data, held->data, &release, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
#if CUGUARD_IMPL_TORCH_COPY_DATA
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
#endif

 private:
  struct held_block {
    c10::DataPtr inner; ///< what the wrapped allocator gave (its deleter frees it)
    void* data;         ///< the storage's first byte
    std::size_t bytes;  ///< the storage's size
  };
  /// A storage freed: held back from reuse (quarantined) while the storages held back since
  /// take at most `quarantine_bytes`, so that an access into it is a use after free, not an
  /// access into whatever reused its memory.
  static void release(void* data) {
    if (data == nullptr) return; // (a storage of no bytes: raw_deallocate of what allocate(0) gave)
    held_block* held = nullptr;
    std::memcpy(&held, static_cast<char*>(data) - redzone, sizeof held);
    emulated_runtime::live().remove(reinterpret_cast<std::uintptr_t>(held->data), true);
    quarantine& q = held_back();
    std::lock_guard<std::mutex> lock(q.mutex);
    q.blocks.push_back(held);
    q.bytes += bytes_of(held);
    while (q.bytes > quarantine_bytes && !q.blocks.empty()) {
      held_block* oldest = q.blocks.front();
      q.blocks.pop_front();
      q.bytes -= bytes_of(oldest);
      emulated_runtime::live().forget(reinterpret_cast<std::uintptr_t>(oldest->data));
      delete oldest; // its DataPtr's deleter gives the memory back
    }
  }
  static constexpr std::size_t quarantine_bytes = std::size_t{256} << 20;
  struct quarantine {
    std::mutex mutex;
    std::deque<held_block*> blocks;
    std::size_t bytes = 0;
  };
  static quarantine& held_back() {
    static quarantine* const q = new quarantine; // never destroyed: storages are freed late
    return *q;
  }
  static std::size_t bytes_of(const held_block* held) { return held->bytes + 2 * redzone; }
  c10::Allocator* inner_;
};

/// Wraps the CPU allocator (once, as the extension loads).
inline const bool cpu_allocator_wrapped = [] {
  // (never destroyed: Torch may allocate after static destructors ran, at exit)
  static tracking_allocator* const wrapped = new tracking_allocator(c10::GetCPUAllocator());
  c10::SetCPUAllocator(wrapped, /*priority=*/200);
  return true;
}();

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

/// Python, before a call of the extension: the storages of its tensor arguments ([begin, begin +
/// bytes) each); added[i] says whether storage i was not known yet (and is now, with 8 bytes
/// past it that no other memory holds: glibc's chunk header).
extern "C" __attribute__((visibility("default"))) void cuguard_sanitize_enter(const std::uint64_t* begins,
                                                                              const std::uint64_t* bytes,
                                                                              unsigned char* added, int n) {
  for (int i = 0; i < n; ++i)
    added[i] = ::cuguard::detail::emulated_runtime::live().lend(static_cast<std::uintptr_t>(begins[i]),
                                                               static_cast<std::size_t>(bytes[i]), 8,
                                                               ::cuguard::detail::torch_adapter::storage_what)
                   ? 1
                   : 0;
}

/// Python, after the call: the storages cuguard_sanitize_enter added are forgotten again.
extern "C" __attribute__((visibility("default"))) void cuguard_sanitize_leave(const std::uint64_t* begins,
                                                                              const unsigned char* added, int n) {
  for (int i = 0; i < n; ++i)
    if (added[i] != 0) ::cuguard::detail::emulated_runtime::live().unlend(static_cast<std::uintptr_t>(begins[i]));
}

/// Python, after a call that returned: a report of its kernels still pending (a finding recorded
/// after the launch that ran it returned: a launch inside a library's code, CUB's, whose error
/// code the caller does not read; initcheck's reads) is taken, its text copied into `text` (at
/// most `size` bytes with the final 0); 1 where Python raises it as IndexError (out of bounds),
/// 2 as RuntimeError, 0 where none is pending.
extern "C" __attribute__((visibility("default"))) int cuguard_sanitize_check(char* text, std::size_t size) {
  const auto copy = [&](const char* what) {
    if (size == 0) return;
    const std::size_t n = std::strlen(what) < size - 1 ? std::strlen(what) : size - 1;
    std::memcpy(text, what, n);
    text[n] = '\0';
  };
  try {
    ::cuguard::check();
  } catch (const ::cuguard::violation_error& e) {
    copy(e.what());
    const ::cuguard::violation_kind k = e.report().kind;
    return k == ::cuguard::violation_kind::out_of_bounds || k == ::cuguard::violation_kind::index_overflow ? 1 : 2;
  } catch (const std::exception& e) {
    copy(e.what());
    return 2;
  }
  return 0;
}
