// SPDX-License-Identifier: Apache-2.0
// The half-precision intrinsics that the toolkit's <cuda_fp16.h> and <cuda_bf16.h> declare for
// device code only, under emulation (<cuguard/emulation.hpp> includes this): fused multiply-adds
// (__hfma, __hfma2 and their _sat and _relu forms) and the math functions (hsqrt, hrsqrt, hrcp,
// hexp, hexp2, hexp10, hlog, hlog2, hlog10, hsin, hcos, hfloor, hceil, htrunc, hrint and the h2
// forms), for __half, __half2, __nv_bfloat16 and __nv_bfloat162. Each is computed in double and
// rounded once to the type, as a GPU rounds the exact result (a fused multiply-add's product is
// exact in double; its sum may round twice in rare cases).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

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
CUGUARD_IMPL_HALF1(hfloor, h2floor, std::floor(x))
CUGUARD_IMPL_HALF1(hceil, h2ceil, std::ceil(x))
CUGUARD_IMPL_HALF1(htrunc, h2trunc, std::trunc(x))
CUGUARD_IMPL_HALF1(hrint, h2rint, std::nearbyint(x))
#undef CUGUARD_IMPL_HALF1
