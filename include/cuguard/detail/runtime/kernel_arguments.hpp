// SPDX-License-Identifier: Apache-2.0
// The copy of a kernel's arguments that cuguard::launch checks, stamps and hands to the backend:
// one member per parameter, of the parameter's type (a small std::tuple, without <tuple>).
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

template <std::size_t I, class T>
struct kernel_argument {
  T value;
};

/// `value` converted to T implicitly, as an argument converts to its parameter in a call.
template <class T>
T as_parameter(T value) {
  return value;
}

template <class Indices, class... T>
struct kernel_arguments;

/// Argument I is a kernel_argument<I, T_I> base; get<I>(args) reaches it.
template <std::size_t... I, class... T>
struct kernel_arguments<std::index_sequence<I...>, T...> : kernel_argument<I, T>... {
  // Each argument converts to its parameter's type as in a call (as std::tuple's converting
  // constructor does, whose header is a system header: the same conversions warn nowhere).
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wconversion"
#  pragma GCC diagnostic ignored "-Wsign-conversion"
#  pragma GCC diagnostic ignored "-Wfloat-conversion"
#endif
  template <class... A>
  explicit kernel_arguments(A&&... a) : kernel_argument<I, T>{as_parameter<T>(std::forward<A>(a))}... {}
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif

  /// Calls f(argument) for each argument, in order.
  template <class F>
  void each(F&& f) {
    (f(static_cast<kernel_argument<I, T>&>(*this).value), ...);
  }
};

template <std::size_t I, class T>
T& get(kernel_argument<I, T>& a) noexcept {
  return a.value;
}

/// The arguments of a kernel with parameters Params.
template <class... Params>
using kernel_arguments_for = kernel_arguments<std::index_sequence_for<Params...>, Params...>;

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
