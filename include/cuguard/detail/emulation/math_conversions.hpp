// SPDX-License-Identifier: Apache-2.0
// CUDA's type conversion intrinsics under emulation (<cuguard/emulation.hpp> includes this in device
// sources): float and double to integers in a named rounding mode (__float2int_rn, ...,
// __double2ull_rd), integers to float and double (__int2float_rz, ..., __ull2double_ru), double to
// float (__double2float_rd, ...), and the bit casts (__float_as_int, __int_as_float,
// __double_as_longlong, __double2hiint, __hiloint2double, ...). A conversion to an integer
// saturates as the GPU's cvt does: past the type's range it gives the type's minimum or maximum
// (negative values give 0 for the unsigned types), and NaN gives 0, or 0x8000000000000000 for
// the 64-bit types (as the toolkit documents for the half-precision twins).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/math_rounding.hpp> // in_mode

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace device_math {
/// `v` rounded to an integer, to nearest with ties to even, whatever the thread's rounding mode.
inline double round_even(double v) noexcept {
  const double below = std::floor(v), fraction = v - below; // (both exact)
  const bool up = fraction > 0.5 || (fraction == 0.5 && std::fmod(below, 2.0) != 0.0);
  return up ? below + 1.0 : below;
}

/// `v` rounded to an integer as `mode` says, then saturated to I's range; NaN: 0, or the sign
/// bit alone for 64-bit types.
template <class I>
I to_integer(double v, int mode) noexcept {
  if (std::isnan(v)) return sizeof(I) == 8 ? static_cast<I>(1ull << 63) : I(0);
  const double r = mode == FE_TONEAREST    ? round_even(v)
                   : mode == FE_TOWARDZERO ? std::trunc(v)
                   : mode == FE_UPWARD     ? std::ceil(v)
                                           : std::floor(v);
  // The type's minimum (0 or -2^(n-1)) and the first value past its maximum (2^n or 2^(n-1)),
  // both exact in double.
  const double lowest = static_cast<double>(std::numeric_limits<I>::min());
  const double past = static_cast<double>(std::numeric_limits<I>::max() / 2 + 1) * 2.0;
  if (r < lowest) return std::numeric_limits<I>::min();
  if (r >= past) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

/// A conversion of an integer (or a double) to T, in the rounding mode it is called in.
template <class T>
struct convert_to {
  template <class U>
  T operator()(U v) const noexcept { return static_cast<T>(v); }
};

/// The bits of `v` as a To (the sizes agree).
template <class To, class From>
To bit_cast(From v) noexcept {
  static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
  To out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}
} // namespace device_math

/// A cast to the integer type T in device code as the GPU computes it (what the translation of a
/// .cu file writes for `(int)x` and `static_cast<int>(x)`): a float or double converts as cvt.rzi
/// does, toward zero, saturated, NaN 0 (0x8000000000000000 for the 64-bit types), as
/// __float2int_rz and its twins; any other operand (an integer, a pointer, a class) as the cast
/// itself, in a constant expression too.
template <class T, class U>
constexpr T gpu_cast(U x) noexcept {
  if constexpr (std::is_floating_point<U>::value && std::is_integral<T>::value) {
    if (!__builtin_is_constant_evaluated()) return device_math::to_integer<T>(static_cast<double>(x), FE_TOWARDZERO);
  }
  if constexpr (std::is_pointer<U>::value) return reinterpret_cast<T>(x); // (a C-style cast's meaning)
  else return static_cast<T>(x); // (a checked pointer's address: its explicit conversion)
}
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// ---------------------------------------------------------------------------------------------
// Floating point to integer: NAME_rn, _rz, _ru and _rd.
// ---------------------------------------------------------------------------------------------
#define CUGUARD_IMPL_TO_INTEGER_ONE(NAME, FROM, TO, MODE)                                            \
  inline TO NAME(FROM x) noexcept {                                                                   \
    return ::cuguard::detail::device_math::to_integer<TO>(static_cast<double>(x), MODE);             \
  }
// NAME_rn, _rz, _ru and _rd, each ONE(NAME_mode, FROM, TO, the mode).
#define CUGUARD_IMPL_FOUR_MODES(ONE, NAME, FROM, TO)                                                  \
  ONE(NAME##_rn, FROM, TO, FE_TONEAREST)                                                              \
  ONE(NAME##_rz, FROM, TO, FE_TOWARDZERO)                                                             \
  ONE(NAME##_ru, FROM, TO, FE_UPWARD)                                                                 \
  ONE(NAME##_rd, FROM, TO, FE_DOWNWARD)
#define CUGUARD_IMPL_TO_INTEGER(NAME, FROM, TO) CUGUARD_IMPL_FOUR_MODES(CUGUARD_IMPL_TO_INTEGER_ONE, NAME, FROM, TO)
CUGUARD_IMPL_TO_INTEGER(__float2int, float, int)
CUGUARD_IMPL_TO_INTEGER(__float2uint, float, unsigned int)
CUGUARD_IMPL_TO_INTEGER(__float2ll, float, long long int)
CUGUARD_IMPL_TO_INTEGER(__float2ull, float, unsigned long long int)
CUGUARD_IMPL_TO_INTEGER(__double2int, double, int)
CUGUARD_IMPL_TO_INTEGER(__double2uint, double, unsigned int)
CUGUARD_IMPL_TO_INTEGER(__double2ll, double, long long int)
CUGUARD_IMPL_TO_INTEGER(__double2ull, double, unsigned long long int)
#undef CUGUARD_IMPL_TO_INTEGER

// ---------------------------------------------------------------------------------------------
// To float and double: the conversion instruction in the mode (exact ones need no mode).
// ---------------------------------------------------------------------------------------------
#define CUGUARD_IMPL_CONVERT_ONE(NAME, FROM, TO, MODE)                                               \
  inline TO NAME(FROM x) noexcept {                                                                   \
    return ::cuguard::detail::device_math::in_mode(MODE, ::cuguard::detail::device_math::convert_to<TO>{}, x); \
  }
#define CUGUARD_IMPL_CONVERT(NAME, FROM, TO) CUGUARD_IMPL_FOUR_MODES(CUGUARD_IMPL_CONVERT_ONE, NAME, FROM, TO)
CUGUARD_IMPL_CONVERT(__int2float, int, float)
CUGUARD_IMPL_CONVERT(__uint2float, unsigned int, float)
CUGUARD_IMPL_CONVERT(__ll2float, long long int, float)
CUGUARD_IMPL_CONVERT(__ull2float, unsigned long long int, float)
CUGUARD_IMPL_CONVERT(__ll2double, long long int, double)
CUGUARD_IMPL_CONVERT(__ull2double, unsigned long long int, double)
CUGUARD_IMPL_CONVERT(__double2float, double, float)
#undef CUGUARD_IMPL_CONVERT
#undef CUGUARD_IMPL_CONVERT_ONE
#undef CUGUARD_IMPL_TO_INTEGER_ONE
#undef CUGUARD_IMPL_FOUR_MODES
/// Exact: every int is a double.
inline double __int2double_rn(int x) noexcept { return static_cast<double>(x); }
/// Exact: every unsigned int is a double.
inline double __uint2double_rn(unsigned int x) noexcept { return static_cast<double>(x); }

// ---------------------------------------------------------------------------------------------
// Bit casts.
// ---------------------------------------------------------------------------------------------
/// The bits of `x` as an int.
inline int __float_as_int(float x) noexcept { return ::cuguard::detail::device_math::bit_cast<int>(x); }
/// The bits of `x` as an unsigned int.
inline unsigned int __float_as_uint(float x) noexcept {
  return ::cuguard::detail::device_math::bit_cast<unsigned int>(x);
}
/// The float whose bits are `x`.
inline float __int_as_float(int x) noexcept { return ::cuguard::detail::device_math::bit_cast<float>(x); }
/// The float whose bits are `x`.
inline float __uint_as_float(unsigned int x) noexcept { return ::cuguard::detail::device_math::bit_cast<float>(x); }
/// The bits of `x` as a long long int.
inline long long int __double_as_longlong(double x) noexcept {
  return ::cuguard::detail::device_math::bit_cast<long long int>(x);
}
/// The double whose bits are `x`.
inline double __longlong_as_double(long long int x) noexcept {
  return ::cuguard::detail::device_math::bit_cast<double>(x);
}
/// The high 32 bits of `x`'s bits, as an int.
inline int __double2hiint(double x) noexcept {
  const auto bits = ::cuguard::detail::device_math::bit_cast<unsigned long long>(x);
  return static_cast<int>(static_cast<unsigned int>(bits >> 32));
}
/// The low 32 bits of `x`'s bits, as an int.
inline int __double2loint(double x) noexcept {
  const auto bits = ::cuguard::detail::device_math::bit_cast<unsigned long long>(x);
  return static_cast<int>(static_cast<unsigned int>(bits));
}
/// The double whose high 32 bits are `hi` and low 32 bits `lo`.
inline double __hiloint2double(int hi, int lo) noexcept {
  const unsigned long long bits =
      static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32 | static_cast<unsigned int>(lo);
  return ::cuguard::detail::device_math::bit_cast<double>(bits);
}
