// SPDX-License-Identifier: Apache-2.0
// cuguard::vec<T, N>: what a view's vector access (load<N>, store<N>) reads and writes.
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// N consecutive elements, aligned to their total size: what load<N> returns and store<N> takes.
template <class T, int N>
struct alignas(sizeof(T) * N) vec {
  static_assert(N > 0 && (N & (N - 1)) == 0, "vec: N must be a power of two");
  static_assert(sizeof(T) * N <= 16, "vec: at most 16 bytes (one 128-bit access)");
  T v[static_cast<std::size_t>(N)];
  CUGUARD_HOST_DEVICE constexpr T& operator[](int i) noexcept { return v[i]; }
  CUGUARD_HOST_DEVICE constexpr const T& operator[](int i) const noexcept { return v[i]; }
};

namespace detail {
/// Reads a vec<T, N> at `p` in one access (host code: memcpy, which compilers turn into one load).
template <class T, int N, class P>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE vec<T, N> read_vec(const P* p) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  return *reinterpret_cast<const vec<T, N>*>(p);
#else
  vec<T, N> out;
  std::memcpy(static_cast<void*>(&out), p, sizeof out); // void*: T may be a class (__half)
  return out;
#endif
}
/// Writes `x` at `p` in one access.
template <class T, int N, class P>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void write_vec(P* p, vec<T, N> x) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  *reinterpret_cast<vec<T, N>*>(p) = x;
#else
  std::memcpy(static_cast<void*>(p), &x, sizeof x); // void*: -Wclass-memaccess for a class T (__half)
#endif
}
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
