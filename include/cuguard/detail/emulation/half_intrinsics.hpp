// SPDX-License-Identifier: Apache-2.0
// The half-precision intrinsics that the toolkit's <cuda_fp16.h> and <cuda_bf16.h> declare for
// device code only, under emulation (the translator includes this where a source speaks of half
// precision): fused multiply-adds (__hfma, __hfma2 and their _sat and _relu forms, __hcmadd) and
// the math functions (hsqrt, hrsqrt, hrcp, hexp, hexp2, hexp10, hlog, hlog2, hlog10, hsin, hcos,
// htanh, htanh_approx, hfloor, hceil, htrunc, hrint and the h2 forms), for __half, __half2,
// __nv_bfloat16 and __nv_bfloat162. Each is computed in double and rounded once to the type, as a
// GPU rounds the exact result (a fused multiply-add's product is exact in double; its sum may round
// twice in rare cases). And the conversions to integers in a rounding mode (__half2int_rn, ...,
// __bfloat162ull_rd: saturated, as math_conversions.hpp's) and from integers to __nv_bfloat16
// (__int2bfloat16_rz, ...), the warp shuffles of the four types, and atomicAdd of the pairs.
#pragma once

#include <cuguard/detail/emulation/math_conversions.hpp> // to_integer, __int2float_rz, ...
#include <cuguard/emulation.hpp>                         // __shfl_sync, the atomics' engine

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfenv>
#include <cmath>
#include <cstring>

namespace cuguard_impl_half {
inline double wide(__half x) { return static_cast<double>(__half2float(x)); }
inline double wide(__nv_bfloat16 x) { return static_cast<double>(__bfloat162float(x)); }
/// `v` rounded to the nearest value of the type of the second argument (ties to even).
inline __half narrow(double v, __half) { return __double2half(v); }
inline __nv_bfloat16 narrow(double v, __nv_bfloat16) { return __double2bfloat16(v); }
inline double saturate(double v) { return std::isnan(v) ? 0.0 : (v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v)); }
inline double relu(double v) { return std::isnan(v) ? v : (v < 0.0 ? 0.0 : v); }
} // namespace cuguard_impl_half

// The scalar form for __half and __nv_bfloat16 and the pair form for __half2 and __nv_bfloat162.
#define CUGUARD_IMPL_HALF3(NAME, NAME2, EXPR)                                                          \
  inline __half NAME(__half a, __half b, __half c) {                                                   \
    using namespace cuguard_impl_half;                                                                 \
    return narrow(EXPR(wide(a), wide(b), wide(c)), a);                                                 \
  }                                                                                                    \
  inline __nv_bfloat16 NAME(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {                       \
    using namespace cuguard_impl_half;                                                                 \
    return narrow(EXPR(wide(a), wide(b), wide(c)), a);                                                 \
  }                                                                                                    \
  inline __half2 NAME2(__half2 a, __half2 b, __half2 c) {                                              \
    return __halves2half2(NAME(__low2half(a), __low2half(b), __low2half(c)),                           \
                          NAME(__high2half(a), __high2half(b), __high2half(c)));                       \
  }                                                                                                    \
  inline __nv_bfloat162 NAME2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {                  \
    return __halves2bfloat162(NAME(__low2bfloat16(a), __low2bfloat16(b), __low2bfloat16(c)),          \
                              NAME(__high2bfloat16(a), __high2bfloat16(b), __high2bfloat16(c)));      \
  }
#define CUGUARD_IMPL_FMA(x, y, z) std::fma(x, y, z)
#define CUGUARD_IMPL_FMA_SAT(x, y, z) saturate(std::fma(x, y, z))
#define CUGUARD_IMPL_FMA_RELU(x, y, z) relu(std::fma(x, y, z))
CUGUARD_IMPL_HALF3(__hfma, __hfma2, CUGUARD_IMPL_FMA)
CUGUARD_IMPL_HALF3(__hfma_sat, __hfma2_sat, CUGUARD_IMPL_FMA_SAT)
CUGUARD_IMPL_HALF3(__hfma_relu, __hfma2_relu, CUGUARD_IMPL_FMA_RELU)
#undef CUGUARD_IMPL_FMA_RELU
#undef CUGUARD_IMPL_FMA_SAT
#undef CUGUARD_IMPL_FMA
#undef CUGUARD_IMPL_HALF3

#define CUGUARD_IMPL_HALF1(NAME, NAME2, EXPR)                                                          \
  inline __half NAME(__half a) {                                                                       \
    using namespace cuguard_impl_half;                                                                 \
    const double x = wide(a);                                                                          \
    return narrow(EXPR, a);                                                                            \
  }                                                                                                    \
  inline __nv_bfloat16 NAME(__nv_bfloat16 a) {                                                         \
    using namespace cuguard_impl_half;                                                                 \
    const double x = wide(a);                                                                          \
    return narrow(EXPR, a);                                                                            \
  }                                                                                                    \
  inline __half2 NAME2(__half2 a) { return __halves2half2(NAME(__low2half(a)), NAME(__high2half(a))); } \
  inline __nv_bfloat162 NAME2(__nv_bfloat162 a) {                                                      \
    return __halves2bfloat162(NAME(__low2bfloat16(a)), NAME(__high2bfloat16(a)));                     \
  }
CUGUARD_IMPL_HALF1(hsqrt, h2sqrt, std::sqrt(x))
CUGUARD_IMPL_HALF1(hrsqrt, h2rsqrt, 1.0 / std::sqrt(x))
CUGUARD_IMPL_HALF1(hrcp, h2rcp, 1.0 / x)
CUGUARD_IMPL_HALF1(hexp, h2exp, std::exp(x))
CUGUARD_IMPL_HALF1(hexp2, h2exp2, std::exp2(x))
CUGUARD_IMPL_HALF1(hexp10, h2exp10, std::pow(10.0, x))
CUGUARD_IMPL_HALF1(hlog, h2log, std::log(x))
CUGUARD_IMPL_HALF1(hlog2, h2log2, std::log2(x))
CUGUARD_IMPL_HALF1(hlog10, h2log10, std::log10(x))
CUGUARD_IMPL_HALF1(hsin, h2sin, std::sin(x))
CUGUARD_IMPL_HALF1(hcos, h2cos, std::cos(x))
CUGUARD_IMPL_HALF1(htanh, h2tanh, std::tanh(x))
CUGUARD_IMPL_HALF1(htanh_approx, h2tanh_approx, std::tanh(x)) // (more accurate than the GPU's approximation)
CUGUARD_IMPL_HALF1(hfloor, h2floor, std::floor(x))
CUGUARD_IMPL_HALF1(hceil, h2ceil, std::ceil(x))
CUGUARD_IMPL_HALF1(htrunc, h2trunc, std::trunc(x))
CUGUARD_IMPL_HALF1(hrint, h2rint, std::nearbyint(x))
#undef CUGUARD_IMPL_HALF1

/// Complex multiply-accumulate a * b + c (real parts low, imaginary parts high), as CUDA defines it
/// from two fused multiply-adds a component.
inline __half2 __hcmadd(__half2 a, __half2 b, __half2 c) {
  const __half re =
      __hfma(__hneg(__high2half(a)), __high2half(b), __hfma(__low2half(a), __low2half(b), __low2half(c)));
  const __half im = __hfma(__high2half(a), __low2half(b), __hfma(__low2half(a), __high2half(b), __high2half(c)));
  return __halves2half2(re, im);
}
inline __nv_bfloat162 __hcmadd(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  const __nv_bfloat16 re = __hfma(__hneg(__high2bfloat16(a)), __high2bfloat16(b),
                                  __hfma(__low2bfloat16(a), __low2bfloat16(b), __low2bfloat16(c)));
  const __nv_bfloat16 im = __hfma(__high2bfloat16(a), __low2bfloat16(b),
                                  __hfma(__low2bfloat16(a), __high2bfloat16(b), __high2bfloat16(c)));
  return __halves2bfloat162(re, im);
}

// ---------------------------------------------------------------------------------------------
// Conversions: to integers (_rz is the toolkit's own, for the host too), and integers to bfloat16
// (the float conversion in the same mode first: two roundings toward one side are one).
// ---------------------------------------------------------------------------------------------
#define CUGUARD_IMPL_HALF_TO_INTEGER(NAME, FROM, TO, WIDE)                                            \
  inline TO NAME##_rn(FROM h) { return ::cuguard::detail::device_math::to_integer<TO>(WIDE(h), FE_TONEAREST); } \
  inline TO NAME##_ru(FROM h) { return ::cuguard::detail::device_math::to_integer<TO>(WIDE(h), FE_UPWARD); } \
  inline TO NAME##_rd(FROM h) { return ::cuguard::detail::device_math::to_integer<TO>(WIDE(h), FE_DOWNWARD); }
#define CUGUARD_IMPL_HALVES_TO_INTEGER(PREFIX, FROM, WIDE)                                            \
  CUGUARD_IMPL_HALF_TO_INTEGER(PREFIX##int, FROM, int, WIDE)                                          \
  CUGUARD_IMPL_HALF_TO_INTEGER(PREFIX##uint, FROM, unsigned int, WIDE)                                \
  CUGUARD_IMPL_HALF_TO_INTEGER(PREFIX##ll, FROM, long long int, WIDE)                                 \
  CUGUARD_IMPL_HALF_TO_INTEGER(PREFIX##ull, FROM, unsigned long long int, WIDE)                       \
  CUGUARD_IMPL_HALF_TO_INTEGER(PREFIX##short, FROM, short int, WIDE)                                  \
  CUGUARD_IMPL_HALF_TO_INTEGER(PREFIX##ushort, FROM, unsigned short int, WIDE)
CUGUARD_IMPL_HALVES_TO_INTEGER(__half2, __half, cuguard_impl_half::wide)
CUGUARD_IMPL_HALVES_TO_INTEGER(__bfloat162, __nv_bfloat16, cuguard_impl_half::wide)
#undef CUGUARD_IMPL_HALVES_TO_INTEGER
#undef CUGUARD_IMPL_HALF_TO_INTEGER
#define CUGUARD_IMPL_TO_BFLOAT16(NAME, FROM, VIA)                                                     \
  inline __nv_bfloat16 NAME##_rz(FROM x) { return __float2bfloat16_rz(VIA##_rz(x)); }                 \
  inline __nv_bfloat16 NAME##_ru(FROM x) { return __float2bfloat16_ru(VIA##_ru(x)); }                 \
  inline __nv_bfloat16 NAME##_rd(FROM x) { return __float2bfloat16_rd(VIA##_rd(x)); }
CUGUARD_IMPL_TO_BFLOAT16(__int2bfloat16, int, __int2float)
CUGUARD_IMPL_TO_BFLOAT16(__uint2bfloat16, unsigned int, __uint2float)
CUGUARD_IMPL_TO_BFLOAT16(__ll2bfloat16, long long int, __ll2float)
CUGUARD_IMPL_TO_BFLOAT16(__ull2bfloat16, unsigned long long int, __ull2float)
CUGUARD_IMPL_TO_BFLOAT16(__short2bfloat16, short int, __int2float)
CUGUARD_IMPL_TO_BFLOAT16(__ushort2bfloat16, unsigned short int, __uint2float)
#undef CUGUARD_IMPL_TO_BFLOAT16

// ---------------------------------------------------------------------------------------------
// Warp shuffles and atomic additions: the value's bits through emulation.hpp's, which take
// trivially copyable values (the pairs are not).
// ---------------------------------------------------------------------------------------------
namespace cuguard_impl_half {
template <class Bits, class T>
Bits to_bits(const T& v) {
  Bits bits;
  std::memcpy(&bits, static_cast<const void*>(&v), sizeof bits);
  return bits;
}
template <class T, class Bits>
T from_bits(Bits bits) {
  T v;
  std::memcpy(static_cast<void*>(&v), &bits, sizeof bits);
  return v;
}
} // namespace cuguard_impl_half
#define CUGUARD_IMPL_CALLER                                                                           \
  const char *file = __builtin_FILE(), const char *function = __builtin_FUNCTION(), unsigned line = __builtin_LINE()
#define CUGUARD_IMPL_HALF_SHUFFLE(NAME, T, BITS, LANE)                                                \
  inline T NAME(unsigned mask, T var, LANE lane, int width = 32, CUGUARD_IMPL_CALLER) {              \
    using namespace cuguard_impl_half;                                                                 \
    return from_bits<T>(::NAME<BITS>(mask, to_bits<BITS>(var), lane, width, file, function, line));    \
  }
#define CUGUARD_IMPL_HALF_SHUFFLES(T, BITS)                                                           \
  CUGUARD_IMPL_HALF_SHUFFLE(__shfl_sync, T, BITS, int)                                                \
  CUGUARD_IMPL_HALF_SHUFFLE(__shfl_xor_sync, T, BITS, int)                                            \
  CUGUARD_IMPL_HALF_SHUFFLE(__shfl_up_sync, T, BITS, unsigned)                                        \
  CUGUARD_IMPL_HALF_SHUFFLE(__shfl_down_sync, T, BITS, unsigned)
CUGUARD_IMPL_HALF_SHUFFLES(__half, unsigned short)
CUGUARD_IMPL_HALF_SHUFFLES(__half2, unsigned int)
CUGUARD_IMPL_HALF_SHUFFLES(__nv_bfloat16, unsigned short)
CUGUARD_IMPL_HALF_SHUFFLES(__nv_bfloat162, unsigned int)
#undef CUGUARD_IMPL_HALF_SHUFFLES
#undef CUGUARD_IMPL_HALF_SHUFFLE
#undef CUGUARD_IMPL_CALLER
// (the two halves added at once: CUDA makes each half atomic, here the pair is)
#define CUGUARD_IMPL_HALF_ATOMIC_ADD(T)                                                               \
  inline T atomicAdd(T* address, T value) {                                                           \
    using namespace cuguard_impl_half;                                                                 \
    const unsigned old = ::cuguard::detail::engine::atomic_update(                                    \
        reinterpret_cast<unsigned*>(address),                                                         \
        [value](unsigned bits) { return to_bits<unsigned>(__hadd2(from_bits<T>(bits), value)); },    \
        __builtin_return_address(0));                                                                 \
    return from_bits<T>(old);                                                                         \
  }
CUGUARD_IMPL_HALF_ATOMIC_ADD(__half2)
CUGUARD_IMPL_HALF_ATOMIC_ADD(__nv_bfloat162)
#undef CUGUARD_IMPL_HALF_ATOMIC_ADD
// atomicAdd of one __half or __nv_bfloat16 (emulation.hpp's template): through __hadd.
inline __half cuguard_impl_atomic_sum(__half old, __half v) { return __hadd(old, v); }
inline __nv_bfloat16 cuguard_impl_atomic_sum(__nv_bfloat16 old, __nv_bfloat16 v) { return __hadd(old, v); }
