// SPDX-License-Identifier: Apache-2.0
// CUDA's SIMD video intrinsics under emulation (<cuguard/emulation.hpp> includes this), with their
// device meaning: each works on the two 16-bit halves (`...2`) or the four bytes (`...4`) of its
// unsigned int operands, lane by lane: sums and differences (wrapping, or saturated signed `ss`
// or unsigned `us`), absolute values and differences, averages, negation, minimum and maximum,
// comparisons (`__vcmp*`: all ones in a lane where true; `__vset*`: 1), and sums of absolute
// differences (`__vsads*`, `__vsadu*`: one number). CUB's operators call them.
// And the special registers of CCCL's cuda::ptx that CUB reads: the lane and its lane masks.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/fiber.hpp> // threadIdx, blockDim

#include <cuda/std/detail/__config>

#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace simd {
/// Lane `i` of `x` (lanes of `bits` bits), as a signed or an unsigned value.
inline long long lane(unsigned x, int bits, int i, bool is_signed) {
  const unsigned mask = (1u << bits) - 1u;
  const unsigned v = (x >> (i * bits)) & mask;
  return is_signed && (v >> (bits - 1)) != 0 ? static_cast<long long>(v) - (1ll << bits) : static_cast<long long>(v);
}
/// Applies `op(a_i, b_i)` to each lane and packs the results (each cut to the lane's bits).
template <class Op>
unsigned lanes(unsigned a, unsigned b, int bits, bool is_signed, Op op) {
  unsigned out = 0;
  for (int i = 0; i < 32 / bits; ++i) {
    const long long r = op(lane(a, bits, i, is_signed), lane(b, bits, i, is_signed));
    out |= (static_cast<unsigned>(r) & ((1u << bits) - 1u)) << (i * bits);
  }
  return out;
}
/// `v` saturated to the lane's range.
inline long long saturate(long long v, int bits, bool is_signed) {
  const long long lo = is_signed ? -(1ll << (bits - 1)) : 0, hi = is_signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
  return v < lo ? lo : (v > hi ? hi : v);
}
inline long long abs_of(long long v) { return v < 0 ? -v : v; }
/// The sum of the lanes' absolute differences.
inline unsigned sad(unsigned a, unsigned b, int bits, bool is_signed) {
  long long s = 0;
  for (int i = 0; i < 32 / bits; ++i) s += abs_of(lane(a, bits, i, is_signed) - lane(b, bits, i, is_signed));
  return static_cast<unsigned>(s);
}
} // namespace simd
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// NAME2 on halves, NAME4 on bytes; `S`: the lanes are signed; `EXPR` of the lanes x, y and bits b.
#define CUGUARD_IMPL_SIMD(NAME, S, EXPR)                                                              \
  inline unsigned int NAME##2(unsigned int a, unsigned int c) {                                      \
    return ::cuguard::detail::simd::lanes(a, c, 16, S, [](long long x, long long y) { const int b = 16; (void)b; (void)y; return EXPR; }); \
  }                                                                                                  \
  inline unsigned int NAME##4(unsigned int a, unsigned int c) {                                      \
    return ::cuguard::detail::simd::lanes(a, c, 8, S, [](long long x, long long y) { const int b = 8; (void)b; (void)y; return EXPR; }); \
  }
#define CUGUARD_IMPL_SIMD1(NAME, S, EXPR)                                                             \
  CUGUARD_IMPL_SIMD(cuguard_impl_##NAME, S, EXPR)                                                     \
  inline unsigned int NAME##2(unsigned int a) { return cuguard_impl_##NAME##2(a, 0); }               \
  inline unsigned int NAME##4(unsigned int a) { return cuguard_impl_##NAME##4(a, 0); }
#define CUGUARD_IMPL_SAT(V, S) ::cuguard::detail::simd::saturate(V, b, S)
#define CUGUARD_IMPL_ALL(C) ((C) ? (1ll << b) - 1 : 0)

CUGUARD_IMPL_SIMD(__vadd, false, x + y)
CUGUARD_IMPL_SIMD(__vaddss, true, CUGUARD_IMPL_SAT(x + y, true))
CUGUARD_IMPL_SIMD(__vaddus, false, CUGUARD_IMPL_SAT(x + y, false))
CUGUARD_IMPL_SIMD(__vsub, false, x - y)
CUGUARD_IMPL_SIMD(__vsubss, true, CUGUARD_IMPL_SAT(x - y, true))
CUGUARD_IMPL_SIMD(__vsubus, false, CUGUARD_IMPL_SAT(x - y, false))
CUGUARD_IMPL_SIMD(__vabsdiffs, true, ::cuguard::detail::simd::abs_of(x - y))
CUGUARD_IMPL_SIMD(__vabsdiffu, false, ::cuguard::detail::simd::abs_of(x - y))
CUGUARD_IMPL_SIMD(__vavgs, true, (x + y + ((x + y) >= 0 ? 1 : 0)) >> 1)
CUGUARD_IMPL_SIMD(__vavgu, false, (x + y + 1) >> 1)
CUGUARD_IMPL_SIMD(__vhaddu, false, (x + y) >> 1)
CUGUARD_IMPL_SIMD(__vmaxs, true, x < y ? y : x)
CUGUARD_IMPL_SIMD(__vmaxu, false, x < y ? y : x)
CUGUARD_IMPL_SIMD(__vmins, true, y < x ? y : x)
CUGUARD_IMPL_SIMD(__vminu, false, y < x ? y : x)
CUGUARD_IMPL_SIMD(__vcmpeq, false, CUGUARD_IMPL_ALL(x == y))
CUGUARD_IMPL_SIMD(__vcmpne, false, CUGUARD_IMPL_ALL(x != y))
CUGUARD_IMPL_SIMD(__vcmpges, true, CUGUARD_IMPL_ALL(x >= y))
CUGUARD_IMPL_SIMD(__vcmpgeu, false, CUGUARD_IMPL_ALL(x >= y))
CUGUARD_IMPL_SIMD(__vcmpgts, true, CUGUARD_IMPL_ALL(x > y))
CUGUARD_IMPL_SIMD(__vcmpgtu, false, CUGUARD_IMPL_ALL(x > y))
CUGUARD_IMPL_SIMD(__vcmples, true, CUGUARD_IMPL_ALL(x <= y))
CUGUARD_IMPL_SIMD(__vcmpleu, false, CUGUARD_IMPL_ALL(x <= y))
CUGUARD_IMPL_SIMD(__vcmplts, true, CUGUARD_IMPL_ALL(x < y))
CUGUARD_IMPL_SIMD(__vcmpltu, false, CUGUARD_IMPL_ALL(x < y))
CUGUARD_IMPL_SIMD(__vseteq, false, x == y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetne, false, x != y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetges, true, x >= y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetgeu, false, x >= y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetgts, true, x > y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetgtu, false, x > y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetles, true, x <= y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetleu, false, x <= y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetlts, true, x < y ? 1 : 0)
CUGUARD_IMPL_SIMD(__vsetltu, false, x < y ? 1 : 0)
CUGUARD_IMPL_SIMD1(__vabs, true, ::cuguard::detail::simd::abs_of(x))
CUGUARD_IMPL_SIMD1(__vabsss, true, CUGUARD_IMPL_SAT(::cuguard::detail::simd::abs_of(x), true))
CUGUARD_IMPL_SIMD1(__vneg, true, -x)
CUGUARD_IMPL_SIMD1(__vnegss, true, CUGUARD_IMPL_SAT(-x, true))
#undef CUGUARD_IMPL_ALL
#undef CUGUARD_IMPL_SAT
#undef CUGUARD_IMPL_SIMD1
#undef CUGUARD_IMPL_SIMD

/// Sums of the lanes' absolute differences.
inline unsigned int __vsads2(unsigned int a, unsigned int b) { return ::cuguard::detail::simd::sad(a, b, 16, true); }
inline unsigned int __vsadu2(unsigned int a, unsigned int b) { return ::cuguard::detail::simd::sad(a, b, 16, false); }
inline unsigned int __vsads4(unsigned int a, unsigned int b) { return ::cuguard::detail::simd::sad(a, b, 8, true); }
inline unsigned int __vsadu4(unsigned int a, unsigned int b) { return ::cuguard::detail::simd::sad(a, b, 8, false); }

// cuda::ptx's special registers (CCCL declares them for device compilation only).
_LIBCUDACXX_BEGIN_NAMESPACE_CUDA_PTX
template <typename = void>
inline std::uint32_t get_sreg_laneid() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
}
template <typename = void>
inline std::uint32_t get_sreg_lanemask_lt() {
  return (1u << get_sreg_laneid()) - 1u;
}
template <typename = void>
inline std::uint32_t get_sreg_lanemask_le() {
  return get_sreg_lanemask_lt() | (1u << get_sreg_laneid());
}
template <typename = void>
inline std::uint32_t get_sreg_lanemask_eq() {
  return 1u << get_sreg_laneid();
}
template <typename = void>
inline std::uint32_t get_sreg_lanemask_gt() {
  return ~get_sreg_lanemask_le();
}
template <typename = void>
inline std::uint32_t get_sreg_lanemask_ge() {
  return ~get_sreg_lanemask_lt();
}
_LIBCUDACXX_END_NAMESPACE_CUDA_PTX
