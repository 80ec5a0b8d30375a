// SPDX-License-Identifier: Apache-2.0
// A record written one field at a time, by a loop: how the cold side of a check writes its record
// in device code without taking registers from the kernel.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a record step holds its bytes in little-endian order");
#endif

/// A record as a check writes it: the violation and what finish() completes it from.
struct record {
  violation v;
  pending p;
};
static_assert(sizeof(record) < (1u << 24), "field_write::place holds an offset in a record below bit 24");

/// One step of writing a record: `place` says where (bytes from the start of the record, below
/// bit 24) and how many bytes (1, 2, 4 or 8 from bit 24; 0: nothing), taken from the first bytes
/// of `bits`. One number for both: a step sets two registers, not three.
struct field_write {
  std::uint32_t place;
  std::uint64_t bits;
};

/// The step that writes the `Size` bytes (1, 2, 4 or 8) from `field` (a member of `r`) on, as
/// one store: `bits` holds them as memory does (the first byte of `field` in its lowest byte;
/// CUDA devices and the hosts cuguard runs on are little-endian). More than `field` itself: fields
/// that lie side by side in the record, whose layout the caller asserts.
template <std::size_t Size, class F>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write put_bytes(const record& r, const F& field,
                                                                   std::uint64_t bits) noexcept {
  static_assert(Size == 1 || Size == 2 || Size == 4 || Size == 8, "put_bytes: 1, 2, 4 or 8 bytes");
  const auto offset = reinterpret_cast<const char*>(&field) - reinterpret_cast<const char*>(&r);
  return field_write{static_cast<std::uint32_t>(offset) | static_cast<std::uint32_t>(Size) << 24, bits};
}

/// `value`, converted to the type of `field` (a member of `r`), as the step that writes it.
template <class F, class V>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write put(const record& r, const F& field, V value) noexcept {
  static_assert(sizeof(F) == 1 || sizeof(F) == 2 || sizeof(F) == 4 || sizeof(F) == 8,
                "a record field is 1, 2, 4 or 8 bytes");
  const F typed = static_cast<F>(value);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &typed, sizeof(F));
  return put_bytes<sizeof(F)>(r, field, bits);
}

/// A compile-time index that device code may convert (std::integral_constant's conversion is
/// host code for nvcc).
template <std::size_t I>
struct index_constant {
  static constexpr std::size_t value = I;
  CUGUARD_HOST_DEVICE constexpr operator std::size_t() const noexcept { return I; }
};

/// The step that writes two 32-bit numbers, `first` into `field` (8-byte aligned) and `second`
/// into the number after it, as one 8-byte store (the caller asserts the layout).
template <class F>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write put_pair(const record& r, const F& field, std::uint32_t first,
                                                                  std::uint32_t second) noexcept {
  static_assert(sizeof(F) == 4, "put_pair: two 32-bit numbers");
  return put_bytes<8>(r, field, static_cast<std::uint64_t>(first) | static_cast<std::uint64_t>(second) << 32);
}

/// `get(i)` for a run-time i < N, as a chain of compile-time indices (index_constant): an array
/// held in registers stays there (indexed at run time, it would be copied to local memory).
template <class Get, std::size_t... I>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE std::int64_t nth(int i, const Get& get, std::index_sequence<I...>) noexcept {
  std::int64_t out = 0;
  (void)((i == static_cast<int>(I) ? (out = static_cast<std::int64_t>(get(index_constant<I>{})), true)
                                   : false) ||
         ...);
  return out;
}

/// The step that writes element i (< N) of the array `field` with `get(i)`.
template <std::size_t N, class F, std::size_t M, class Get>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write put_nth(const record& r, const F (&field)[M], int i,
                                                                 const Get& get) noexcept {
  static_assert(N <= M, "put_nth: more elements than the field holds");
  field_write f = put(r, field[0], nth(i, get, std::make_index_sequence<N>{}));
  f.place += static_cast<std::uint32_t>(i) * static_cast<std::uint32_t>(sizeof(F));
  return f;
}

/// Writes fields 0 to count - 1 of `fields(r, k)` into `r`. One loop, kept a loop in device code:
/// every field passes through the same few registers. Unrolled, the compiler loads the values of
/// many fields ahead, each into a register of its own (on sm_90 up to 32, which cost no
/// occupancy), and a kernel's register count is its peak: a cold path would set it.
CUGUARD_IMPL_EXEC_CHECK_DISABLE
template <class Fields>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void write_fields(record& r, const Fields& fields, int count) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
#  pragma unroll 1
#endif
  for (int k = 0; k < count; ++k) {
    const field_write f = fields(r, k);
    char* dst = reinterpret_cast<char*>(&r) + (f.place & 0xffffffu);
    // A step is aligned to its size: a scalar field of its natural alignment, or fields side by
    // side whose first is aligned to the step's size (put_pair, put_bytes: the callers assert it).
    switch (f.place >> 24) {
    case 1: std::memcpy(dst, &f.bits, 1); break;
    case 2: std::memcpy(__builtin_assume_aligned(dst, 2), &f.bits, 2); break;
    case 4: std::memcpy(__builtin_assume_aligned(dst, 4), &f.bits, 4); break;
    case 8: std::memcpy(__builtin_assume_aligned(dst, 8), &f.bits, 8); break;
    default: break;
    }
  }
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
