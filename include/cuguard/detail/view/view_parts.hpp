// SPDX-License-Identifier: Apache-2.0
// The parts of a checked_view besides pointer, extents and strides: its metadata (checks on),
// the tags of its internal constructors, and the traits through which <cuguard/mdspan.hpp>
// connects it to cuda::std::mdspan.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/view/lifetime_token.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE

template <class T, std::size_t Rank, class Index>
class checked_view;

namespace detail {
struct raw_tag {};
/// Selects the constructors that copy a shape element by element (see checked_view's
/// "no loops over the rank" note).
struct shape_tag {};

/// What a view needs to know of a type M it is made from or converted to; <cuguard/mdspan.hpp>
/// specializes it for cuda::std::mdspan.
template <class M>
struct mdspan_traits {
  static constexpr bool is_mdspan = false;
  template <class T, std::size_t Rank, class Index>
  static constexpr bool converts_from = false;
};
/// The cuda::std::mdspan a view converts to (`type`, `make`): <cuguard/mdspan.hpp> defines it
/// (for Deferred = void); without that header, to_mdspan() fails to compile, saying so.
template <class T, std::size_t Rank, class Index, class Deferred>
struct mdspan_for {
  static_assert(sizeof(Deferred*) == 0, "to_mdspan: include <cuguard/mdspan.hpp> (cuda::std::mdspan interop, "
                                        "which <cuguard/cuguard.hpp> leaves out)");
  using type = void;
};

/// The checked view a kernel argument of type P carries, for cuguard::launch to check, stamp
/// and name: a view itself, or (specializations) a type built on one, such as cuguard::torch's
/// accessors. `get(p)` returns a reference to it.
template <class P>
struct argument_view {
  static constexpr bool value = false;
};
template <class T, std::size_t Rank, class Index>
struct argument_view<checked_view<T, Rank, Index>> {
  static constexpr bool value = true;
  static checked_view<T, Rank, Index>& get(checked_view<T, Rank, Index>& v) noexcept { return v; }
};

/// Metadata a checked view carries besides pointer, extents and strides (checks on only).
struct view_meta {
  const char* label = nullptr;
  lifetime_token token{};
  memory_space space = memory_space::unknown;
  bool label_on_host = true;
  int device = -1;
  std::uint64_t launch = 0;
};
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
