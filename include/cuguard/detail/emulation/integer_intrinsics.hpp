// SPDX-License-Identifier: Apache-2.0
// CUDA's integer intrinsics under emulation (<cuguard/emulation.hpp> includes this), with their
// device meaning: bit counts and reversals (__popc, __clz, __ffs, __brev and their 64-bit forms),
// __byte_perm, __funnelshift_*, the high halves of products (__mulhi, __umulhi, __mul64hi,
// __umul64hi), 24-bit products (__mul24, __umul24), halving adds (__hadd, __rhadd, __uhadd,
// __urhadd), sums of absolute differences (__sad, __usad), CUDA's min and max of mixed integer
// types (umin, umax, llmin, llmax, ullmin, ullmax) and __nanosleep (a yield).
#pragma once

#include <sched.h>

#include <cstdint>

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
/// Byte i of the result is byte s[4i+2:4i] of the eight bytes of {y, x} (x the low four).
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift < 32 ? shift : 32)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift < 32 ? shift : 32));
}
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) {
  __extension__ typedef __int128 wide; // (-pedantic: a GCC and Clang extension)
  return static_cast<long long>((static_cast<wide>(x) * y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  __extension__ typedef unsigned __int128 wide;
  return static_cast<unsigned long long>((static_cast<wide>(x) * y) >> 64);
}
/// The low 24 bits of each (sign-extended for __mul24), multiplied: the low 32 bits of the product.
inline int __mul24(int x, int y) {
  const auto low24 = [](int v) { return static_cast<long long>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v) << 8) >> 8); };
  return static_cast<int>(static_cast<std::uint32_t>(low24(x) * low24(y)));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) { return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1); }
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}
inline unsigned int __sad(int x, int y, unsigned int z) {
  return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x);
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
#if !defined(CUGUARD_IMPL_HOST_SOURCE) // (not in a host .cpp of an emulated target: cuguardEmulate.cmake)
inline unsigned int umin(unsigned int a, unsigned int b) { return b < a ? b : a; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return b < a ? b : a; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
#endif
/// Waits about `ns` nanoseconds as a GPU may (any time up to about twice that): here the thread
/// lets the block's other threads run first (spin_waits.hpp).
inline void __nanosleep(unsigned int ns) {
  (void)ns;
  ::sched_yield();
}
