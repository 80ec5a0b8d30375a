// SPDX-License-Identifier: Apache-2.0
// A sanitized extension's kernels (cuguard.torch.load(..., sanitize=True)) are built with GCC's
// -fsanitize=float-cast-overflow, whose callback comes here before a float or double is converted
// to an integer type that cannot hold it (NaN, an infinity, a value past its range). A cast
// (`(int)x`) converts as the GPU does already (the translation's gpu_cast: saturated, NaN 0);
// an implicit conversion (`int r = x;`, an argument, a return value) cannot, and the host's
// answer (x86: the type's minimum) is not the GPU's: in a kernel's thread it is recorded as a
// `conversion_overflow` finding, with both values and the line, and the thread goes on. Host
// code's conversions are left to the host. Without UndefinedBehaviorSanitizer's runtime (a
// plain python3 cannot load it), these definitions are the callbacks.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/math_conversions.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/violation.hpp>

#include <cfenv>
#include <cstdint>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// UBSan's description of a type: its kind (0 integer, 1 floating point), its information (an
/// integer's log2 of its width << 1 | signed; a float's width in bits) and its name.
struct ubsan_type {
  std::uint16_t kind;
  std::uint16_t info;
  char name[1];
};

/// The conversion's types from the callback's data, which GCC lays out with or without a source
/// location first (a type's first bytes are a kind of 0 or 1, a file name's are characters).
inline void conversion_types(const void* data, const ubsan_type*& from, const ubsan_type*& to) noexcept {
  const auto* words = static_cast<const void* const*>(data);
  const auto* first = static_cast<const unsigned char*>(words[0]);
  const bool located = !(first[0] <= 1 && first[1] == 0);
  const std::size_t at = located ? 2 : 0; // (a location: file name, then line and column in one word)
  from = static_cast<const ubsan_type*>(words[at]);
  to = static_cast<const ubsan_type*>(words[at + 1]);
}

/// The callback: `from` holds the value's bits (a float's or a double's; a wider type's address).
inline void on_conversion_overflow(const void* data, std::uintptr_t from_bits, const void* pc) noexcept {
  const platform::emulated_thread* t = platform::running;
  if (t == nullptr) return; // (host code)
  const ubsan_type *from = nullptr, *to = nullptr;
  conversion_types(data, from, to);
  double value = 0;
  if (from->info == 32) {
    float f = 0;
    const auto bits = static_cast<std::uint32_t>(from_bits);
    std::memcpy(&f, &bits, sizeof f);
    value = f;
  } else if (from->info == 64) {
    std::memcpy(&value, &from_bits, sizeof value);
  } else {
    value = static_cast<double>(*reinterpret_cast<const long double*>(from_bits));
  }
  const int bits = 1 << (to->info >> 1);
  const bool is_signed = (to->info & 1) != 0;
  backend::record_thread_finding(*t, pc, [&](violation& v) {
    v.kind = violation_kind::conversion_overflow;
    v.op = operation::access;
    std::memcpy(&v.value, &value, sizeof value);
    v.bytes = bits / 8;
    v.dim = is_signed ? 1 : 0;
    if (bits == 64)
      v.value_end = is_signed ? device_math::to_integer<std::int64_t>(value, FE_TOWARDZERO)
                              : static_cast<std::int64_t>(device_math::to_integer<std::uint64_t>(value, FE_TOWARDZERO));
    else
      v.value_end = is_signed ? device_math::to_integer<std::int32_t>(value, FE_TOWARDZERO)
                              : device_math::to_integer<std::uint32_t>(value, FE_TOWARDZERO);
    copy_text(v.type, from->name);
    copy_text(v.label, to->name);
  }, current_device_state<void>());
}

/// An integer of UBSan's type `t` from its value handle (inline up to 64 bits; sign-extended).
inline std::int64_t ubsan_integer(const ubsan_type* t, std::uintptr_t handle) noexcept {
  const int bits = 1 << (t->info >> 1);
  if (bits > 64) return static_cast<std::int64_t>(*reinterpret_cast<const std::uint64_t*>(handle)); // (128-bit: its low half)
  const int extra = 64 - bits;
  const auto raw = static_cast<std::uint64_t>(handle) << extra;
  return (t->info & 1) != 0 ? static_cast<std::int64_t>(raw) >> extra : static_cast<std::int64_t>(raw >> extra);
}

/// The callback of -fsanitize=shift-exponent: a shift by a negative count or by the width or more.
inline void on_shift_overflow(const void* data, std::uintptr_t lhs, std::uintptr_t rhs, const void* pc) noexcept {
  const platform::emulated_thread* t = platform::running;
  if (t == nullptr) return; // (host code)
  const ubsan_type *left = nullptr, *right = nullptr;
  conversion_types(data, left, right);
  backend::record_thread_finding(*t, pc, [&](violation& v) {
    v.kind = violation_kind::shift_overflow;
    v.op = operation::access;
    v.value = ubsan_integer(left, lhs);
    v.value_end = ubsan_integer(right, rhs);
    v.bytes = (1 << (left->info >> 1)) / 8;
    copy_text(v.type, left->name);
  }, current_device_state<void>());
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

extern "C" __attribute__((weak, noinline)) void __ubsan_handle_float_cast_overflow(void* data, void* from) {
  ::cuguard::detail::emulated_runtime::on_conversion_overflow(data, reinterpret_cast<std::uintptr_t>(from),
                                                               static_cast<const char*>(__builtin_return_address(0)) - 1);
}
extern "C" __attribute__((weak, noinline)) void __ubsan_handle_float_cast_overflow_abort(void* data, void* from) {
  ::cuguard::detail::emulated_runtime::on_conversion_overflow(data, reinterpret_cast<std::uintptr_t>(from),
                                                               static_cast<const char*>(__builtin_return_address(0)) - 1);
}
extern "C" __attribute__((weak, noinline)) void __ubsan_handle_shift_out_of_bounds(void* data, void* lhs, void* rhs) {
  ::cuguard::detail::emulated_runtime::on_shift_overflow(data, reinterpret_cast<std::uintptr_t>(lhs), reinterpret_cast<std::uintptr_t>(rhs),
                                                          static_cast<const char*>(__builtin_return_address(0)) - 1);
}
extern "C" __attribute__((weak, noinline)) void __ubsan_handle_shift_out_of_bounds_abort(void* data, void* lhs, void* rhs) {
  ::cuguard::detail::emulated_runtime::on_shift_overflow(data, reinterpret_cast<std::uintptr_t>(lhs), reinterpret_cast<std::uintptr_t>(rhs),
                                                          static_cast<const char*>(__builtin_return_address(0)) - 1);
}
