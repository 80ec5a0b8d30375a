// SPDX-License-Identifier: Apache-2.0
// CUDA's arithmetic in a named rounding mode under emulation (<cuguard/emulation.hpp> includes
// this in device sources): __fadd_rn/_rz/_ru/_rd and the same forms of __fsub, __fmul, __fdiv,
// __fmaf (and __fmaf_ieee), __frcp, __fsqrt, their double twins (__dadd, __dsub, __dmul, __ddiv,
// __fma, __drcp, __dsqrt), __frsqrt_rn and the float2 forms of compute capability 10.0 (__fadd2,
// __fmul2, __ffma2). Each is the IEEE operation correctly rounded in its mode, as a GPU computes
// it: the host's floating-point unit, switched to that mode for the one operation.
#pragma once

#include <cuguard/config.hpp>

#include <cuda_runtime.h> // float2, make_float2

#include <cfenv>
#include <cmath>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace device_math {
/// `v` through a volatile object: the compiler can neither fold what it feeds nor fuse the
/// operation that made it with the next (__fmul_rn's product never becomes part of an FMA).
template <class T>
T opaque(T v) noexcept {
  volatile T copy = v;
  return copy;
}

/// `op(args...)` computed with the calling thread's rounding mode set to `mode` (FE_TONEAREST,
/// FE_TOWARDZERO, FE_UPWARD or FE_DOWNWARD) and restored after. The arguments are read and the
/// result written through volatile objects, so the operation stays between the two switches
/// (without -frounding-math the compiler would otherwise fold it or move it across them).
template <class Op, class... A>
auto in_mode(int mode, Op op, A... args) noexcept {
  const int saved = std::fegetround();
  if (saved != mode) std::fesetround(mode);
  volatile auto result = op(opaque(args)...);
  if (saved != mode) std::fesetround(saved);
  auto value = result;
  return value;
}

// The operations in_mode computes (a function object each: the operation, not a value, is passed).
struct add {
  template <class T>
  T operator()(T a, T b) const noexcept { return a + b; }
};
struct subtract {
  template <class T>
  T operator()(T a, T b) const noexcept { return a - b; }
};
struct multiply {
  template <class T>
  T operator()(T a, T b) const noexcept { return a * b; }
};
struct divide {
  template <class T>
  T operator()(T a, T b) const noexcept { return a / b; }
};
struct fused_multiply_add {
  template <class T>
  T operator()(T a, T b, T c) const noexcept { return std::fma(a, b, c); }
};
struct reciprocal {
  template <class T>
  T operator()(T a) const noexcept { return T(1) / a; }
};
struct square_root {
  template <class T>
  T operator()(T a) const noexcept { return std::sqrt(a); }
};
} // namespace device_math
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// NAME_rn, NAME_rz, NAME_ru and NAME_rd: OP in each mode (ARGS: the parameters' names, in parentheses).
#define CUGUARD_IMPL_UNPAREN(...) __VA_ARGS__
#define CUGUARD_IMPL_ROUNDED_ONE(NAME, MODE, T, OP, PARAMS, ARGS)                                    \
  inline T NAME PARAMS noexcept {                                                                     \
    return ::cuguard::detail::device_math::in_mode(MODE, ::cuguard::detail::device_math::OP{},       \
                                                   CUGUARD_IMPL_UNPAREN ARGS);                        \
  }
#define CUGUARD_IMPL_ROUNDED(NAME, T, OP, PARAMS, ARGS)                                               \
  CUGUARD_IMPL_ROUNDED_ONE(NAME##_rn, FE_TONEAREST, T, OP, PARAMS, ARGS)                              \
  CUGUARD_IMPL_ROUNDED_ONE(NAME##_rz, FE_TOWARDZERO, T, OP, PARAMS, ARGS)                             \
  CUGUARD_IMPL_ROUNDED_ONE(NAME##_ru, FE_UPWARD, T, OP, PARAMS, ARGS)                                 \
  CUGUARD_IMPL_ROUNDED_ONE(NAME##_rd, FE_DOWNWARD, T, OP, PARAMS, ARGS)
CUGUARD_IMPL_ROUNDED(__fadd, float, add, (float x, float y), (x, y))
CUGUARD_IMPL_ROUNDED(__fsub, float, subtract, (float x, float y), (x, y))
CUGUARD_IMPL_ROUNDED(__fmul, float, multiply, (float x, float y), (x, y))
CUGUARD_IMPL_ROUNDED(__fdiv, float, divide, (float x, float y), (x, y))
CUGUARD_IMPL_ROUNDED(__fmaf, float, fused_multiply_add, (float x, float y, float z), (x, y, z))
// (__fmaf_ieee: __fmaf that keeps subnormal operands under -ftz=true; emulation never flushes them)
CUGUARD_IMPL_ROUNDED(__fmaf_ieee, float, fused_multiply_add, (float x, float y, float z), (x, y, z))
CUGUARD_IMPL_ROUNDED(__frcp, float, reciprocal, (float x), (x))
CUGUARD_IMPL_ROUNDED(__fsqrt, float, square_root, (float x), (x))
CUGUARD_IMPL_ROUNDED(__dadd, double, add, (double x, double y), (x, y))
CUGUARD_IMPL_ROUNDED(__dsub, double, subtract, (double x, double y), (x, y))
CUGUARD_IMPL_ROUNDED(__dmul, double, multiply, (double x, double y), (x, y))
CUGUARD_IMPL_ROUNDED(__ddiv, double, divide, (double x, double y), (x, y))
CUGUARD_IMPL_ROUNDED(__fma, double, fused_multiply_add, (double x, double y, double z), (x, y, z))
CUGUARD_IMPL_ROUNDED(__drcp, double, reciprocal, (double x), (x))
CUGUARD_IMPL_ROUNDED(__dsqrt, double, square_root, (double x), (x))
#undef CUGUARD_IMPL_ROUNDED
#undef CUGUARD_IMPL_ROUNDED_ONE
#undef CUGUARD_IMPL_UNPAREN

/// 1/sqrt(x) rounded to nearest: the double quotient rounded once (never a midpoint's
/// neighbour: checked for every float of [1, 4), and the quotient scales by powers of 4).
inline float __frsqrt_rn(float x) noexcept {
  return static_cast<float>(::cuguard::detail::device_math::opaque(1.0 / std::sqrt(static_cast<double>(x))));
}

// The float2 forms (compute capability 10.0): the float operation on each component.
#define CUGUARD_IMPL_ROUNDED2(NAME, ONE, PARAMS, X, Y)                                               \
  inline float2 NAME##_rn PARAMS noexcept { return make_float2(ONE##_rn X, ONE##_rn Y); }           \
  inline float2 NAME##_rz PARAMS noexcept { return make_float2(ONE##_rz X, ONE##_rz Y); }           \
  inline float2 NAME##_ru PARAMS noexcept { return make_float2(ONE##_ru X, ONE##_ru Y); }           \
  inline float2 NAME##_rd PARAMS noexcept { return make_float2(ONE##_rd X, ONE##_rd Y); }
CUGUARD_IMPL_ROUNDED2(__fadd2, __fadd, (float2 x, float2 y), (x.x, y.x), (x.y, y.y))
CUGUARD_IMPL_ROUNDED2(__fmul2, __fmul, (float2 x, float2 y), (x.x, y.x), (x.y, y.y))
CUGUARD_IMPL_ROUNDED2(__ffma2, __fmaf, (float2 x, float2 y, float2 z), (x.x, y.x, z.x), (x.y, y.y, z.y))
#undef CUGUARD_IMPL_ROUNDED2
