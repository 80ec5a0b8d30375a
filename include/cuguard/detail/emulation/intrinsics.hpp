// SPDX-License-Identifier: Apache-2.0
// What the emulated built-in functions of <cuguard/emulation.hpp> share: the running grid's
// runner, the lane of the running thread, values as the bits a warp exchanges, and atomic updates
// the race detector does not count as plain stores.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/fiber.hpp>
#include <cuguard/detail/emulation/grid_runner.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {
/// The runner of the grid the calling thread runs in.
inline grid_runner& runner() noexcept { return *current_runner; }

template <class T>
std::uint64_t to_bits(T v) noexcept {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp shuffles move values of up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  return bits;
}
template <class T>
T from_bits(std::uint64_t bits) noexcept {
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
inline unsigned lane() noexcept {
  return (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) % 32;
}

/// An atomic operation on `p`: the race detector does not count its change as a plain store.
inline void note_atomic(const void* p) noexcept {
  if (grid_runner* r = kernel_thread_runner()) r->races().atomic(p);
}

/// Notes an atomic operation on `p` as it ends, when the operation's own access is logged (a
/// sanitizer's access hook logs a raw one as the operation reads).
/// The atomic operations the calling OS thread is in, and where the outermost was called (a
/// sanitizer's access hook tells their accesses from plain ones, at the caller's line).
inline thread_local int atomic_depth = 0;
/// Non-zero while the calling OS thread runs the emulation's own code that a sanitized build's
/// access hooks pass over (the PTX interpreter's workings: what an interpreted ld or st reads and
/// writes is checked by AddressSanitizer's memcpy).
inline thread_local int hooks_paused = 0;
inline thread_local const void* atomic_caller = nullptr;
struct atomic_noted {
  const void* p;
  atomic_noted(const void* q, const void* caller) noexcept : p(q) {
    if (atomic_depth++ == 0) atomic_caller = caller;
  }
  ~atomic_noted() {
    --atomic_depth;
    note_atomic(p);
  }
  atomic_noted(const atomic_noted&) = delete;
  atomic_noted& operator=(const atomic_noted&) = delete;
};

/// `*address = op(*address)` atomically; `caller`: where the atomic function was called.
template <class T, class Op>
T atomic_update(T* address, Op op, const void* caller) noexcept {
  const atomic_noted noted{address, caller};
  if constexpr (std::is_integral<T>::value) {
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(address, &old, op(old), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
  } else {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "emulated atomics take 2-, 4- or 8-byte values");
    // The value's own width: a wider compare-and-swap would rewrite the neighbouring elements.
    using bits_t = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                      std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    auto* raw = reinterpret_cast<bits_t*>(address);
    bits_t old = __atomic_load_n(raw, __ATOMIC_RELAXED);
    for (;;) {
      T value;
      std::memcpy(static_cast<void*>(&value), &old, sizeof value);
      const T next = op(value);
      bits_t next_bits;
      std::memcpy(&next_bits, static_cast<const void*>(&next), sizeof next_bits);
      if (__atomic_compare_exchange_n(raw, &old, next_bits, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return value;
    }
  }
}
} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
