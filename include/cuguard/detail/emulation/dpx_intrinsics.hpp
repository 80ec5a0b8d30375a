// SPDX-License-Identifier: Apache-2.0
// The integer intrinsics of later GPUs under emulation (<cuguard/emulation.hpp> includes this in
// device sources), with their device meaning: the DPX functions of compute capability 9.0 (the
// maximum or minimum of three, or of a sum and a third value; with ReLU, `_relu`: at least 0; or
// with a predicate saying which operand won, __vibmax and __vibmin), on an int (`_s32`), an
// unsigned int (`_u32`) or the two 16-bit halves of one (`_s16x2`, `_u16x2`); the dot products of
// compute capability 6.1 (__dp4a, __dp2a_lo, __dp2a_hi); and the byte swaps (__nv_bswap16, 32,
// 64). Sums wrap as the GPU's do: modulo 2^32, or 2^16 in a half.
#pragma once

#include <cuguard/config.hpp>

#include <cuda_runtime.h> // char4, uchar4, short2, ushort2

#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace dpx {
enum class op { max3, min3, add_max, add_min };

/// `v` as a lane of `bits` bits holds it (wrapping), signed or not.
inline long long wrap(long long v, int bits, bool is_signed) noexcept {
  const long long size = 1ll << bits, m = ((v % size) + size) % size;
  return is_signed && m >= size / 2 ? m - size : m;
}
/// `o` of one lane's values.
inline long long apply(op o, long long a, long long b, long long c, int bits, bool is_signed) noexcept {
  const long long first = o == op::max3 || o == op::min3 ? a : wrap(a + b, bits, is_signed);
  const long long second = o == op::max3 || o == op::min3 ? b : c;
  const bool is_max = o == op::max3 || o == op::add_max;
  long long r = is_max ? (first < second ? second : first) : (second < first ? second : first);
  if (o == op::max3) r = r < c ? c : r;
  if (o == op::min3) r = c < r ? c : r;
  return r;
}
/// `o` on 32-bit operands (T: int or unsigned int).
template <class T>
T whole(op o, bool relu, T a, T b, T c) noexcept {
  const long long r = apply(o, a, b, c, 32, std::is_signed<T>::value);
  return static_cast<T>(relu && r < 0 ? 0 : r);
}
/// Half `i` (0: low) of `x`, as a signed or an unsigned 16-bit value.
inline long long half(unsigned x, int i, bool is_signed) noexcept {
  return wrap((x >> (16 * i)) & 0xffffu, 16, is_signed);
}
/// `o` on each 16-bit half of the operands, the results packed.
inline unsigned halves(op o, bool relu, bool is_signed, unsigned a, unsigned b, unsigned c) noexcept {
  unsigned out = 0;
  for (int i = 0; i < 2; ++i) {
    long long r = apply(o, half(a, i, is_signed), half(b, i, is_signed), half(c, i, is_signed), 16, is_signed);
    r = relu && r < 0 ? 0 : r;
    out |= (static_cast<unsigned>(r) & 0xffffu) << (16 * i);
  }
  return out;
}
/// Four lanes of a dot product.
struct four {
  long long v[4];
};
inline four lanes(long long a, long long b, long long c, long long d) noexcept { return {{a, b, c, d}}; }
/// The bytes of `x` (the low first), signed or not.
inline four bytes(unsigned x, bool is_signed) noexcept {
  four out{};
  for (int i = 0; i < 4; ++i) out.v[i] = wrap((x >> (8 * i)) & 0xffu, 8, is_signed);
  return out;
}
/// The 16-bit halves of `x` (the low first), signed or not.
inline four halves_of(unsigned x, bool is_signed) noexcept {
  return lanes(half(x, 0, is_signed), half(x, 1, is_signed), 0, 0);
}
/// c + a[0] b[from] + ... + a[n-1] b[from + n - 1], modulo 2^32.
template <class T>
T dot(four a, four b, int n, int from, T c) noexcept {
  long long sum = static_cast<long long>(c);
  for (int i = 0; i < n; ++i) sum += a.v[i] * b.v[from + i];
  return static_cast<T>(static_cast<unsigned>(sum));
}
} // namespace dpx
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// The six forms of a three-operand DPX function.
#define CUGUARD_IMPL_DPX(NAME, OP)                                                                   \
  inline int NAME##_s32(int a, int b, int c) noexcept {                                               \
    return ::cuguard::detail::dpx::whole(::cuguard::detail::dpx::op::OP, false, a, b, c);           \
  }                                                                                                   \
  inline int NAME##_s32_relu(int a, int b, int c) noexcept {                                          \
    return ::cuguard::detail::dpx::whole(::cuguard::detail::dpx::op::OP, true, a, b, c);            \
  }                                                                                                   \
  inline unsigned int NAME##_u32(unsigned int a, unsigned int b, unsigned int c) noexcept {           \
    return ::cuguard::detail::dpx::whole(::cuguard::detail::dpx::op::OP, false, a, b, c);           \
  }                                                                                                   \
  inline unsigned int NAME##_s16x2(unsigned int a, unsigned int b, unsigned int c) noexcept {         \
    return ::cuguard::detail::dpx::halves(::cuguard::detail::dpx::op::OP, false, true, a, b, c);    \
  }                                                                                                   \
  inline unsigned int NAME##_s16x2_relu(unsigned int a, unsigned int b, unsigned int c) noexcept {    \
    return ::cuguard::detail::dpx::halves(::cuguard::detail::dpx::op::OP, true, true, a, b, c);     \
  }                                                                                                   \
  inline unsigned int NAME##_u16x2(unsigned int a, unsigned int b, unsigned int c) noexcept {         \
    return ::cuguard::detail::dpx::halves(::cuguard::detail::dpx::op::OP, false, false, a, b, c);   \
  }
CUGUARD_IMPL_DPX(__vimax3, max3)
CUGUARD_IMPL_DPX(__vimin3, min3)
CUGUARD_IMPL_DPX(__viaddmax, add_max)
CUGUARD_IMPL_DPX(__viaddmin, add_min)
#undef CUGUARD_IMPL_DPX

/// max(a, b, 0).
inline int __vimax_s32_relu(int a, int b) noexcept { return __vimax3_s32_relu(a, b, a); }
/// max(min(a, b), 0).
inline int __vimin_s32_relu(int a, int b) noexcept { return __vimin3_s32_relu(a, b, a); }
/// Per signed half: max(a, b, 0).
inline unsigned int __vimax_s16x2_relu(unsigned int a, unsigned int b) noexcept { return __vimax3_s16x2_relu(a, b, a); }
/// Per signed half: max(min(a, b), 0).
inline unsigned int __vimin_s16x2_relu(unsigned int a, unsigned int b) noexcept { return __vimin3_s16x2_relu(a, b, a); }

// __vibmax and __vibmin: the maximum (minimum) and whether `a` is it (a >= b; a <= b).
#define CUGUARD_IMPL_VIB(NAME, OP, TEST)                                                             \
  inline int NAME##_s32(int a, int b, bool* const pred) noexcept {                                    \
    *pred = a TEST b;                                                                                 \
    return ::cuguard::detail::dpx::whole(::cuguard::detail::dpx::op::OP, false, a, b, a);           \
  }                                                                                                   \
  inline unsigned int NAME##_u32(unsigned int a, unsigned int b, bool* const pred) noexcept {         \
    *pred = a TEST b;                                                                                 \
    return ::cuguard::detail::dpx::whole(::cuguard::detail::dpx::op::OP, false, a, b, a);           \
  }                                                                                                   \
  inline unsigned int NAME##_s16x2(unsigned int a, unsigned int b, bool* const pred_hi,                \
                                   bool* const pred_lo) noexcept {                                   \
    *pred_hi = ::cuguard::detail::dpx::half(a, 1, true) TEST ::cuguard::detail::dpx::half(b, 1, true); \
    *pred_lo = ::cuguard::detail::dpx::half(a, 0, true) TEST ::cuguard::detail::dpx::half(b, 0, true); \
    return ::cuguard::detail::dpx::halves(::cuguard::detail::dpx::op::OP, false, true, a, b, a);    \
  }                                                                                                   \
  inline unsigned int NAME##_u16x2(unsigned int a, unsigned int b, bool* const pred_hi,                \
                                   bool* const pred_lo) noexcept {                                   \
    *pred_hi = ::cuguard::detail::dpx::half(a, 1, false) TEST ::cuguard::detail::dpx::half(b, 1, false); \
    *pred_lo = ::cuguard::detail::dpx::half(a, 0, false) TEST ::cuguard::detail::dpx::half(b, 0, false); \
    return ::cuguard::detail::dpx::halves(::cuguard::detail::dpx::op::OP, false, false, a, b, a);   \
  }
CUGUARD_IMPL_VIB(__vibmax, max3, >=)
CUGUARD_IMPL_VIB(__vibmin, min3, <=)
#undef CUGUARD_IMPL_VIB

// ---------------------------------------------------------------------------------------------
// Dot products: c plus four bytes by four bytes (__dp4a), or two 16-bit halves by two bytes, the
// low two (__dp2a_lo) or the high two (__dp2a_hi) of b.
// ---------------------------------------------------------------------------------------------
inline int __dp4a(int a, int b, int c) noexcept {
  namespace d = ::cuguard::detail::dpx;
  return d::dot<int>(d::bytes(static_cast<unsigned>(a), true), d::bytes(static_cast<unsigned>(b), true), 4, 0, c);
}
inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) noexcept {
  namespace d = ::cuguard::detail::dpx;
  return d::dot<unsigned>(d::bytes(a, false), d::bytes(b, false), 4, 0, c);
}
inline int __dp4a(char4 a, char4 b, int c) noexcept {
  namespace d = ::cuguard::detail::dpx;
  return d::dot<int>(d::lanes(a.x, a.y, a.z, a.w), d::lanes(b.x, b.y, b.z, b.w), 4, 0, c);
}
inline unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) noexcept {
  namespace d = ::cuguard::detail::dpx;
  return d::dot<unsigned>(d::lanes(a.x, a.y, a.z, a.w), d::lanes(b.x, b.y, b.z, b.w), 4, 0, c);
}
#define CUGUARD_IMPL_DP2A(NAME, FROM)                                                                \
  inline int NAME(int a, int b, int c) noexcept {                                                     \
    namespace d = ::cuguard::detail::dpx;                                                             \
    const unsigned ua = static_cast<unsigned>(a), ub = static_cast<unsigned>(b);                      \
    return d::dot<int>(d::halves_of(ua, true), d::bytes(ub, true), 2, FROM, c);                       \
  }                                                                                                   \
  inline unsigned int NAME(unsigned int a, unsigned int b, unsigned int c) noexcept {                 \
    namespace d = ::cuguard::detail::dpx;                                                             \
    return d::dot<unsigned>(d::halves_of(a, false), d::bytes(b, false), 2, FROM, c);                 \
  }                                                                                                   \
  inline int NAME(short2 a, char4 b, int c) noexcept {                                                \
    namespace d = ::cuguard::detail::dpx;                                                             \
    return d::dot<int>(d::lanes(a.x, a.y, 0, 0), d::lanes(b.x, b.y, b.z, b.w), 2, FROM, c);          \
  }                                                                                                   \
  inline unsigned int NAME(ushort2 a, uchar4 b, unsigned int c) noexcept {                            \
    namespace d = ::cuguard::detail::dpx;                                                             \
    return d::dot<unsigned>(d::lanes(a.x, a.y, 0, 0), d::lanes(b.x, b.y, b.z, b.w), 2, FROM, c);     \
  }
CUGUARD_IMPL_DP2A(__dp2a_lo, 0)
CUGUARD_IMPL_DP2A(__dp2a_hi, 2)
#undef CUGUARD_IMPL_DP2A

/// The bytes of `x` in reverse order.
inline unsigned short __nv_bswap16(unsigned short x) noexcept { return __builtin_bswap16(x); }
/// The bytes of `x` in reverse order.
inline unsigned int __nv_bswap32(unsigned int x) noexcept { return __builtin_bswap32(x); }
/// The bytes of `x` in reverse order.
inline unsigned long long __nv_bswap64(unsigned long long x) noexcept { return __builtin_bswap64(x); }
