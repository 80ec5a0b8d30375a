// SPDX-License-Identifier: Apache-2.0
// CUDA's device math functions that the C and C++ libraries lack, under emulation
// (<cuguard/emulation.hpp> includes this in device sources): reciprocal roots and norms (rsqrt,
// rcbrt, rhypot, norm3d, norm4d, rnorm3d, rnorm4d, norm, rnorm), sinpi, cospi and sincospi, the
// inverse and scaled error functions (erfinv, erfcinv, erfcx), the normal distribution (normcdf,
// normcdfinv), the modified Bessel functions cyl_bessel_i0 and cyl_bessel_i1, fdivide, each with
// its `f` form; the C++ overloads CUDA adds for float (rsqrt(float), erfinv(float), ...); and the
// fast single-precision intrinsics (__expf, __sinf, __powf, __fdividef, ...). The classification
// functions (isfinite, isinf, isnan, signbit) are declared in the global namespace, as CUDA and
// <math.h> declare them. A float function is its double twin rounded once to float: within
// CUDA's error bounds (the double ones measured within 2 ulps, erfcx 4, against mpmath).
#pragma once

#include <cuguard/config.hpp>

#include <cmath>
#include <limits>

// What <math.h> declares too (a source that includes it redeclares the same functions).
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace device_math {
inline constexpr double pi = 3.14159265358979323846;
inline constexpr double sqrt_pi = 1.77245385090551602730;
inline constexpr double sqrt_2 = 1.41421356237309504880;

/// The length of the n-vector `v` (float or double), without undue overflow or underflow: the
/// squares of the components scaled by a power of two (exactly). Infinite where a component is,
/// even with a NaN.
template <class T>
double norm(int n, const T* v) noexcept {
  double largest = 0.0;
  bool any_nan = false;
  for (int i = 0; i < n; ++i) {
    const double a = std::fabs(static_cast<double>(v[i]));
    if (std::isinf(a)) return a;
    any_nan = any_nan || std::isnan(a);
    largest = a > largest ? a : largest;
  }
  if (any_nan) return std::numeric_limits<double>::quiet_NaN();
  if (largest == 0.0) return 0.0;
  const int scale = std::ilogb(largest);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double s = std::scalbn(static_cast<double>(v[i]), -scale);
    sum += s * s;
  }
  return std::scalbn(std::sqrt(sum), scale);
}

/// sin(pi x) and cos(pi x): x less the nearest multiple of 1/2 (exact), the quadrant from it.
inline void sincospi(double x, double* s, double* c) noexcept {
  if (!std::isfinite(x)) {
    *s = *c = x - x; // NaN
    return;
  }
  double sine = 0.0, cosine = 1.0;
  if (std::fabs(x) < 0x1p52) { // (from 2^52 every double is an integer: sin 0, cos +-1)
    const double halves = std::round(2.0 * x), r = x - 0.5 * halves;
    const double sr = std::sin(pi * r), cr = std::cos(pi * r);
    const int quadrant = static_cast<int>(halves - 4.0 * std::floor(halves / 4.0));
    sine = quadrant == 0 ? sr : quadrant == 1 ? cr : quadrant == 2 ? -sr : -cr;
    cosine = quadrant == 0 ? cr : quadrant == 1 ? -sr : quadrant == 2 ? -cr : sr;
  } else if (std::fmod(x, 2.0) != 0.0) {
    cosine = -1.0;
  }
  *s = sine == 0.0 ? std::copysign(0.0, x) : sine; // sinpi(n) = +-0 with n's sign
  *c = cosine == 0.0 ? 0.0 : cosine;                // cospi(n + 1/2) = +0
}

/// exp(x^2) erfc(x): the product with x^2 split in two (exact) below 26, an asymptotic series
/// from there (where exp(x^2) would overflow and erfc(x) underflow).
inline double erfcx(double x) noexcept {
  if (std::isnan(x)) return x;
  if (x < -26.7) return std::numeric_limits<double>::infinity(); // (exp(x^2) overflows)
  if (x < 26.0) {
    const double square = x * x, rest = std::fma(x, x, -square); // x^2 = square + rest
    const double scale = std::exp(square) * (1.0 + rest);
    return x >= 0.0 ? scale * std::erfc(x) : 2.0 * scale - erfcx(-x);
  }
  // 1/(x sqrt(pi)) (1 - 1/(2x^2) + 1*3/(2x^2)^2 - ...): below 1e-17 within a dozen terms from 26.
  const double step = 0.5 / x / x;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 20 && std::fabs(term) > 1e-18; ++k) {
    term *= -(2 * k - 1) * step;
    sum += term;
  }
  return sum / (x * sqrt_pi);
}

/// y >= 0 with erfc(y) = q, for q in (0, 1/2]: Newton's method on log erfc(y) = log q, that is
/// log erfcx(y) - y^2 = log q (no underflow), from Winitzki's approximation of erfinv.
inline double erfc_tail_root(double q) noexcept {
  const double a = 0.147, l = std::log(q * (2.0 - q)), t = 2.0 / (pi * a) + 0.5 * l;
  double y = std::sqrt(std::sqrt(t * t - l / a) - t);
  const double target = std::log(q);
  for (int i = 0; i < 12; ++i) {
    const double e = erfcx(y), f = std::log(e) - y * y - target, slope = -2.0 / (sqrt_pi * e);
    const double step = f / slope;
    y -= step;
    if (std::fabs(step) <= 1e-13 * y) break; // (converging quadratically: the next step is below an ulp)
  }
  return y;
}

/// y with erf(y) = x, for |x| <= 1/2: Newton's method from the series' first two terms.
inline double erf_central_root(double x) noexcept {
  double y = 0.5 * sqrt_pi * x * (1.0 + pi * x * x / 12.0);
  for (int i = 0; i < 12 && y != 0.0; ++i) {
    const double step = (std::erf(y) - x) / (2.0 / sqrt_pi * std::exp(-y * y));
    y -= step;
    if (std::fabs(step) <= 1e-13 * std::fabs(y)) break;
  }
  return y;
}

/// The inverse of erfc, on [0, 2]: 1 - q, 2 - q and q - 1 are exact where they are taken.
inline double erfcinv(double q) noexcept {
  if (!(q >= 0.0 && q <= 2.0)) return std::numeric_limits<double>::quiet_NaN();
  if (q == 0.0) return std::numeric_limits<double>::infinity();
  if (q == 2.0) return -std::numeric_limits<double>::infinity();
  if (q <= 0.5) return erfc_tail_root(q);
  if (q >= 1.5) return -erfc_tail_root(2.0 - q);
  return erf_central_root(1.0 - q);
}

/// The inverse of erf, on [-1, 1].
inline double erfinv(double x) noexcept {
  if (std::isnan(x) || std::fabs(x) > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return x;
  if (std::fabs(x) <= 0.5) return erf_central_root(x);
  const double a = std::fabs(x);
  return std::copysign(a == 1.0 ? std::numeric_limits<double>::infinity() : erfc_tail_root(1.0 - a), x);
}

/// The modified Bessel function I_nu(x), nu 0 or 1, x >= 0: the power series to 30, Hankel's
/// asymptotic expansion beyond (e^x taken in halves: the result overflows after e^x does). In
/// long double where it is wider: the series' dozens of terms cost double some ten ulps.
inline double bessel_i(int nu, double x) noexcept {
  using wide = long double;
  if (std::isinf(x)) return x;
  const wide w = x;
  if (x <= 30.0) {
    const wide q = w * w / 4;
    wide term = nu == 0 ? wide(1) : w / 2, sum = term;
    for (int k = 1; term > sum * wide(1e-20); ++k) {
      term *= q / (static_cast<wide>(k) * (k + nu));
      sum += term;
    }
    return static_cast<double>(sum);
  }
  const wide mu = 4 * nu * nu;
  wide term = 1, sum = 1;
  for (int k = 1; k < 40 && std::fabs(term) > wide(1e-20); ++k) {
    term *= -(mu - wide(2 * k - 1) * (2 * k - 1)) / (8 * k * w);
    sum += term;
  }
  const wide half = std::exp(w / 2);
  return static_cast<double>(half * (half / std::sqrt(2 * static_cast<wide>(pi) * w)) * sum);
}

/// The standard normal distribution function 0.5 erfc(-x / sqrt(2)), with -x / sqrt(2) in two
/// parts: its rounding alone would cost hundreds of ulps in the lower tail (erfc's slope there).
inline double normcdf(double x) noexcept {
  const double s_hi = 0x1.6a09e667f3bcdp-1, s_lo = -0x1.bdd3413b26456p-55; // 1/sqrt(2) = s_hi + s_lo
  const double hi = -x * s_hi, lo = std::fma(-x, s_hi, -hi) - x * s_lo;
  const double e = std::erfc(hi);
  return std::isfinite(hi) ? 0.5 * (e - lo * (2.0 / sqrt_pi) * std::exp(-hi * hi)) : 0.5 * e;
}
} // namespace device_math
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// ---------------------------------------------------------------------------------------------
// Double precision, and the float forms: the double result rounded once.
// ---------------------------------------------------------------------------------------------
/// 1/sqrt(x).
inline double rsqrt(double x) noexcept { return 1.0 / std::sqrt(x); }
/// 1/cbrt(x).
inline double rcbrt(double x) noexcept { return 1.0 / std::cbrt(x); }
/// 1/hypot(x, y).
inline double rhypot(double x, double y) noexcept { return 1.0 / std::hypot(x, y); }
/// The length of (a, b, c).
inline double norm3d(double a, double b, double c) noexcept {
  const double v[3] = {a, b, c};
  return ::cuguard::detail::device_math::norm(3, v);
}
/// The length of (a, b, c, d).
inline double norm4d(double a, double b, double c, double d) noexcept {
  const double v[4] = {a, b, c, d};
  return ::cuguard::detail::device_math::norm(4, v);
}
/// One over the length of (a, b, c).
inline double rnorm3d(double a, double b, double c) noexcept { return 1.0 / norm3d(a, b, c); }
/// One over the length of (a, b, c, d).
inline double rnorm4d(double a, double b, double c, double d) noexcept { return 1.0 / norm4d(a, b, c, d); }
/// The length of the `dim`-vector at `p`.
inline double norm(int dim, const double* p) noexcept { return ::cuguard::detail::device_math::norm(dim, p); }
/// One over the length of the `dim`-vector at `p`.
inline double rnorm(int dim, const double* p) noexcept { return 1.0 / norm(dim, p); }
/// sin(pi x) (exactly 0 at integers, +-1 at their halves).
inline double sinpi(double x) noexcept {
  double s, c;
  ::cuguard::detail::device_math::sincospi(x, &s, &c);
  return s;
}
/// cos(pi x) (exactly +-1 at integers, +0 at their halves).
inline double cospi(double x) noexcept {
  double s, c;
  ::cuguard::detail::device_math::sincospi(x, &s, &c);
  return c;
}
/// sin(pi x) into *s, cos(pi x) into *c.
inline void sincospi(double x, double* s, double* c) noexcept { ::cuguard::detail::device_math::sincospi(x, s, c); }
/// The inverse error function: erf(erfinv(x)) = x on [-1, 1].
inline double erfinv(double x) noexcept { return ::cuguard::detail::device_math::erfinv(x); }
/// The inverse complementary error function: erfc(erfcinv(x)) = x on [0, 2].
inline double erfcinv(double x) noexcept { return ::cuguard::detail::device_math::erfcinv(x); }
/// The scaled complementary error function exp(x^2) erfc(x) (finite where erfc underflows).
inline double erfcx(double x) noexcept { return ::cuguard::detail::device_math::erfcx(x); }
/// The standard normal distribution function.
inline double normcdf(double x) noexcept { return ::cuguard::detail::device_math::normcdf(x); }
/// The inverse of normcdf, on [0, 1].
inline double normcdfinv(double x) noexcept {
  return 0.0 - ::cuguard::detail::device_math::sqrt_2 * ::cuguard::detail::device_math::erfcinv(2.0 * x); // (+0 at 1/2)
}
/// The modified Bessel function of the first kind of order 0 (even).
inline double cyl_bessel_i0(double x) noexcept { return ::cuguard::detail::device_math::bessel_i(0, std::fabs(x)); }
/// The modified Bessel function of the first kind of order 1 (odd).
inline double cyl_bessel_i1(double x) noexcept {
  return std::copysign(::cuguard::detail::device_math::bessel_i(1, std::fabs(x)), x);
}
/// x / y.
inline double fdivide(double x, double y) noexcept { return x / y; }

// NAME(float) and NAMEf(float): the double function's result rounded to float.
#define CUGUARD_IMPL_FLOAT1(NAME)                                                                    \
  inline float NAME##f(float x) noexcept { return static_cast<float>(NAME(static_cast<double>(x))); } \
  inline float NAME(float x) noexcept { return NAME##f(x); }
CUGUARD_IMPL_FLOAT1(rsqrt)
CUGUARD_IMPL_FLOAT1(rcbrt)
CUGUARD_IMPL_FLOAT1(sinpi)
CUGUARD_IMPL_FLOAT1(cospi)
CUGUARD_IMPL_FLOAT1(erfinv)
CUGUARD_IMPL_FLOAT1(erfcinv)
CUGUARD_IMPL_FLOAT1(erfcx)
CUGUARD_IMPL_FLOAT1(normcdf)
CUGUARD_IMPL_FLOAT1(normcdfinv)
#undef CUGUARD_IMPL_FLOAT1
/// The float Bessel functions (CUDA has no float overloads of these names).
inline float cyl_bessel_i0f(float x) noexcept { return static_cast<float>(cyl_bessel_i0(static_cast<double>(x))); }
inline float cyl_bessel_i1f(float x) noexcept { return static_cast<float>(cyl_bessel_i1(static_cast<double>(x))); }
/// 1/hypot(x, y) in float.
inline float rhypotf(float x, float y) noexcept {
  return static_cast<float>(rhypot(static_cast<double>(x), static_cast<double>(y)));
}
/// The length of (a, b, c) in float.
inline float norm3df(float a, float b, float c) noexcept {
  const float v[3] = {a, b, c};
  return static_cast<float>(::cuguard::detail::device_math::norm(3, v));
}
/// The length of (a, b, c, d) in float.
inline float norm4df(float a, float b, float c, float d) noexcept {
  const float v[4] = {a, b, c, d};
  return static_cast<float>(::cuguard::detail::device_math::norm(4, v));
}
/// One over the length of (a, b, c) in float.
inline float rnorm3df(float a, float b, float c) noexcept {
  const float v[3] = {a, b, c};
  return static_cast<float>(1.0 / ::cuguard::detail::device_math::norm(3, v));
}
/// One over the length of (a, b, c, d) in float.
inline float rnorm4df(float a, float b, float c, float d) noexcept {
  const float v[4] = {a, b, c, d};
  return static_cast<float>(1.0 / ::cuguard::detail::device_math::norm(4, v));
}
/// The length of the `dim`-vector at `p` in float.
inline float normf(int dim, const float* p) noexcept {
  return static_cast<float>(::cuguard::detail::device_math::norm(dim, p));
}
/// One over the length of the `dim`-vector at `p` in float.
inline float rnormf(int dim, const float* p) noexcept {
  return static_cast<float>(1.0 / ::cuguard::detail::device_math::norm(dim, p));
}
/// sin(pi x) into *s, cos(pi x) into *c, in float.
inline void sincospif(float x, float* s, float* c) noexcept {
  double ds, dc;
  ::cuguard::detail::device_math::sincospi(static_cast<double>(x), &ds, &dc);
  *s = static_cast<float>(ds);
  *c = static_cast<float>(dc);
}
/// sincospif, as CUDA's C++ overload names it.
inline void sincospi(float x, float* s, float* c) noexcept { sincospif(x, s, c); }
/// x / y in float (CUDA's fdividef, without -use_fast_math: the IEEE quotient).
inline float fdividef(float x, float y) noexcept { return x / y; }

// ---------------------------------------------------------------------------------------------
// The fast intrinsics: here the accurate results, which are within the intrinsics' bounds. (glibc
// declares most of these names for itself and exports none: these are their definitions.)
// ---------------------------------------------------------------------------------------------
inline float __expf(float x) noexcept { return std::exp(x); }
inline float __exp10f(float x) noexcept { return static_cast<float>(std::pow(10.0, static_cast<double>(x))); }
inline float __logf(float x) noexcept { return std::log(x); }
inline float __log2f(float x) noexcept { return std::log2(x); }
inline float __log10f(float x) noexcept { return std::log10(x); }
inline float __powf(float x, float y) noexcept { return std::pow(x, y); }
inline float __sinf(float x) noexcept { return std::sin(x); }
inline float __cosf(float x) noexcept { return std::cos(x); }
inline float __tanf(float x) noexcept { return std::tan(x); }
inline float __tanhf(float x) noexcept { return std::tanh(x); }
inline void __sincosf(float x, float* s, float* c) noexcept {
  *s = std::sin(x);
  *c = std::cos(x);
}
/// x / y, and as the GPU's approximation: 0 (NaN for an infinite x) where 2^126 < |y| < 2^128.
inline float __fdividef(float x, float y) noexcept {
  const float big = std::fabs(y);
  if (big > 0x1p126f && big < std::numeric_limits<float>::infinity()) {
    return std::isinf(x) ? std::numeric_limits<float>::quiet_NaN() : 0.0f * x / y;
  }
  return x / y;
}
