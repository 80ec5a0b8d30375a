// SPDX-License-Identifier: Apache-2.0
// What cuguard.torch.load compiles into an extension built under emulation with checks on (or
// sanitize=True), in one translation unit of its own: the live memory (detail/runtime/live_memory.hpp)
// that a T* converted to a cuguard::ptr takes its bounds from, and that sanitize=True checks
// kernels' raw accesses against. Torch's CPU allocator is wrapped as the extension
// loads, so that every storage allocated from then on is known from its allocation to its free,
// with 64 bytes on either side that nothing else holds, and its memory is held back from reuse
// for a while once freed (the last 256 MiB of storages freed, at most 2048); under sanitize=True
// it lies in the guarded arena (detail/runtime/guarded_arena.hpp: 2 GiB that no storage holds
// after each, where an access is reported before it happens), and its bytes
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
#include <cuguard/detail/adapters/torch_reports.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/runtime/guarded_arena.hpp>
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

/// A sanitized extension (sanitize=True: its access hooks see the kernels' loads and stores) was
/// loaded. One flag for the process: the allocator is wrapped once, by the first extension of
/// cuguard's loaded (the guard of cpu_allocator_wrapped, a unique symbol, is shared), which need
/// not be a sanitized one.
inline std::atomic<bool> sanitized_extension_loaded{false};
#if CUGUARD_IMPL_ACCESS_HOOKS
/// (internal linkage: set by every sanitized extension's own copy as it loads)
static const bool sanitized_extension_loaded_here = (sanitized_extension_loaded.store(true), true);
#endif

/// Initcheck of storages: on once a sanitized extension is loaded, unless
/// CUGUARD_EMULATION_INITCHECK=0.
inline bool storages_initcheck_on() {
  if (!sanitized_extension_loaded.load(std::memory_order_relaxed)) return false;
  static const bool allowed = [] {
    const char* value = platform::environment(platform::setting::emulation_initcheck);
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return allowed;
}

/// The arena of guarded storages (an overrun of up to 2 GiB past one is reported before it
/// happens), once a sanitized extension is loaded; null before, or where none could be reserved.
inline emulated_runtime::guarded_arena* storages_arena() {
  if (!sanitized_extension_loaded.load(std::memory_order_relaxed)) return nullptr;
  static emulated_runtime::guarded_arena* const arena = [] {
    emulated_runtime::guarded_arena* a = emulated_runtime::guarded_arena::get();
    if (a != nullptr) emulated_runtime::live().guard(a->begin(), a->end());
    return a;
  }();
  return arena;
}

/// A block of the arena given back (the deleter of what the wrapped allocator would have given).
inline void release_guarded(void* first) { emulated_runtime::guarded_arena::get()->release(first); }

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
    emulated_runtime::guarded_arena* const arena = storages_arena();
    void* const guarded = arena != nullptr ? arena->allocate(n + 2 * redzone) : nullptr;
    c10::DataPtr inner = guarded != nullptr ? c10::DataPtr(guarded, guarded, &release_guarded, c10::Device(c10::DeviceType::CPU))
                                            : inner_->allocate(n + 2 * redzone);
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
  /// take at most `quarantine_bytes` (and number at most `quarantine_blocks`), so that an access into it is a use after free, not an
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
    while ((q.bytes > quarantine_bytes || q.blocks.size() > quarantine_blocks) && !q.blocks.empty()) {
      held_block* oldest = q.blocks.front();
      q.blocks.pop_front();
      q.bytes -= bytes_of(oldest);
      emulated_runtime::live().forget(reinterpret_cast<std::uintptr_t>(oldest->data));
      delete oldest; // its DataPtr's deleter gives the memory back
    }
  }
  static constexpr std::size_t quarantine_bytes = std::size_t{256} << 20;
  static constexpr std::size_t quarantine_blocks = 2048; ///< (of the guarded arena's 8192)
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
  return ::cuguard::detail::torch_adapter::take_report(text, size, true);
}
