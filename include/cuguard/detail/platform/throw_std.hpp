// SPDX-License-Identifier: Apache-2.0
// detail::throw_out_of_range: throws std::out_of_range without parsing <stdexcept> (which brings
// <string>, a quarter of a small CUDA file's compile time) where the standard library has a
// thrower of its own: libstdc++'s std::__throw_out_of_range, declared in <bits/functexcept.h>,
// defined in libstdc++.so, used by every libstdc++ container. Elsewhere, <stdexcept>.
#pragma once

#include <cuguard/config.hpp>

#include <cstddef> // any standard header: it says which library this is (__GLIBCXX__)

#if defined(__GLIBCXX__) && __has_include(<bits/functexcept.h>)
#  include <bits/functexcept.h>
#  define CUGUARD_IMPL_LIBSTDCXX_THROWERS 1
#else
#  include <stdexcept>
#  define CUGUARD_IMPL_LIBSTDCXX_THROWERS 0
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Throws std::out_of_range whose what() is `message`.
[[noreturn]] inline void throw_out_of_range(const char* message) {
#if CUGUARD_IMPL_LIBSTDCXX_THROWERS
  std::__throw_out_of_range(message);
#else
  throw std::out_of_range(message);
#endif
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
