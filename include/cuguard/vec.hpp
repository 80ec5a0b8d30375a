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
#if defined(CUGUARD_IMPL_ACCESS_HOOKS) && CUGUARD_IMPL_ACCESS_HOOKS
// A sanitized emulated build (detail/runtime/access_hooks.hpp) sees a vector access as the access
// it is: memcpy is not one of the loads and stores its callbacks see.
#  define CUGUARD_IMPL_VEC_ACCESS(hook, p, bytes) hook(const_cast<void*>(static_cast<const volatile void*>(p)), bytes)
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
// (-fsanitize=address declares them; -fsanitize=kernel-address, cuguard.torch's sanitize, does not)
extern "C" void __asan_loadN_noabort(void*, long);
extern "C" void __asan_storeN_noabort(void*, long);
CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
#else
#  define CUGUARD_IMPL_VEC_ACCESS(hook, p, bytes) (void)0
#endif
/// Reads a vec<T, N> at `p` in one access (host code: memcpy, which compilers turn into one load).
template <class T, int N, class P>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE vec<T, N> read_vec(const P* p) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  return *reinterpret_cast<const vec<T, N>*>(p);
#else
  vec<T, N> out;
  CUGUARD_IMPL_VEC_ACCESS(__asan_loadN_noabort, p, sizeof out);
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
  CUGUARD_IMPL_VEC_ACCESS(__asan_storeN_noabort, p, sizeof x);
  std::memcpy(static_cast<void*>(p), &x, sizeof x); // void*: -Wclass-memaccess for a class T (__half)
#endif
}
#undef CUGUARD_IMPL_VEC_ACCESS
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
