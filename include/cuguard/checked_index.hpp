// SPDX-License-Identifier: Apache-2.0
// cuguard::checked_index: an index value that remembers where it came from; index_from, bounded.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <cstdint>
#include <type_traits>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// An index value that remembers where it came from: the label of the index view it was read
/// from and the position it was read at (index_from), or the bound it was checked against
/// (bounded). An access made with it reports that origin. It converts to its value, so it can be
/// used wherever an integer can; arithmetic on it gives a plain integer (and forgets the origin).
/// With checks off it is exactly its value.
template <class Index = std::int64_t>
class checked_index {
  static_assert(detail::is_integer_v<Index>, "checked_index: Index must be an integer type (not bool)");

 public:
  using value_type = Index;

  checked_index() = default;
  /// An index with no origin.
  CUGUARD_HOST_DEVICE constexpr explicit checked_index(Index value) noexcept : value_(value) {}

  /// The same index in a wider (or other) integer type, origin included: an int32 index read
  /// from an index tensor used where int64 indices are expected.
  template <class Other, std::enable_if_t<!std::is_same<Other, Index>::value, int> = 0>
  CUGUARD_HOST_DEVICE constexpr explicit checked_index(const checked_index<Other>& other) noexcept
#if CUGUARD_IMPL_CHECKS
      : value_(static_cast<Index>(other.value())), origin_(other.origin()) {
  }
#else
      : value_(static_cast<Index>(other.value())) {
  }
#endif

  /// The value.
  CUGUARD_HOST_DEVICE constexpr Index value() const noexcept { return value_; }
  CUGUARD_HOST_DEVICE constexpr operator Index() const noexcept { return value_; }

#if CUGUARD_IMPL_CHECKS
  CUGUARD_HOST_DEVICE constexpr checked_index(Index value, const detail::origin_info& origin) noexcept
      : value_(value), origin_(origin) {}
  /// Where the value came from.
  CUGUARD_HOST_DEVICE constexpr const detail::origin_info& origin() const noexcept { return origin_; }

 private:
  Index value_{};
  detail::origin_info origin_{};
#else
 private:
  Index value_{};
#endif
};

namespace detail {
template <class I>
struct is_checked_index<checked_index<I>> : std::true_type {};
} // namespace detail

#if CUGUARD_IMPL_CHECKS

/// Reads `indices(i...)` (a checked access, reported at the caller's line) and returns it as a
/// checked_index whose origin is the label of `indices` and the position (i...).
namespace detail {
template <class View, class First, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from(const View& indices, const First& i0, Rest... rest) {
  using value_type = std::remove_cv_t<typename View::element_type>;
  static_assert(is_integer_v<value_type>, "index_from: the index view's elements must be integers");
  static_assert(sizeof...(Rest) + 1 == View::rank(), "index_from: wrong number of indices for the index view");
  const value_type value = indices(i0, rest...);
  origin_info origin{};
  origin.kind = index_origin::index_view;
  origin.rank = static_cast<int>(View::rank());
  origin.label = indices.label_ref();
  const std::int64_t position[] = {i0.value, index_value(rest)...};
  for (int r = 0; r < origin.rank; ++r) origin.position[r] = position[r];
  return checked_index<value_type>(value, origin);
}
} // namespace detail

/// Reads `indices(i...)` (a checked access, reported at the caller's line) and returns it as a
/// checked_index whose origin is the label of `indices` and the position (i...).
template <class View, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from(const View& indices, detail::first_index i0, Rest... rest) {
  return detail::index_from(indices, i0, rest...);
}
template <class View, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from(const View& indices, detail::first_checked_index i0, Rest... rest) {
  return detail::index_from(indices, i0, rest...);
}

namespace detail {
template <class View, class I, std::size_t... K>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from_array(const View& indices, const I (&idx)[sizeof...(K) + 1], const cuda::std::source_location& where,
                 std::index_sequence<0, K...>) {
  return detail::index_from(indices, first_index(idx[0], where), idx[K]...);
}
} // namespace detail

/// index_from with the position as an array of Rank integers, for kernels written for any rank.
template <class View, class I, std::size_t Rank>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from(const View& indices, const I (&idx)[Rank],
           cuda::std::source_location where = cuda::std::source_location::current()) {
  static_assert(detail::is_integer_v<I>, "index_from: positions must be integers");
  return detail::index_from_array(indices, idx, where, std::make_index_sequence<Rank>{});
}

namespace detail {
/// 0 <= value < bound, compared as the numbers they are (a size_t above the int64 maximum too).
template <class I, class B>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE constexpr bool in_bound(I value, B bound) noexcept {
  const auto v = static_cast<std::int64_t>(value);
  const auto b = static_cast<std::int64_t>(bound);
  const auto uv = static_cast<std::uint64_t>(value);
  const auto ub = static_cast<std::uint64_t>(bound);
  if constexpr (std::is_signed<I>::value && std::is_signed<B>::value) return v >= 0 && v < b;
  else if constexpr (std::is_signed<I>::value) return v >= 0 && uv < ub;
  else if constexpr (std::is_signed<B>::value) return b > 0 && uv < ub;
  else return uv < ub;
}
} // namespace detail

/// Checks 0 <= value < bound here (a violation reported at the caller's line otherwise) and
/// returns value as a checked_index that remembers the bound.
template <class I, class B>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<I> bounded(
    I value, B bound, cuda::std::source_location where = cuda::std::source_location::current()) {
  static_assert(detail::is_integer_v<I> && detail::is_integer_v<B>, "bounded: value and bound must be integers");
  const auto v = static_cast<std::int64_t>(value);
  const auto b = static_cast<std::int64_t>(bound);
  if (CUGUARD_IMPL_UNLIKELY(!detail::in_bound(value, bound)))
    detail::fail_bounded(v, b, !std::is_signed<I>::value, !std::is_signed<B>::value, where);
  detail::origin_info origin{};
  origin.kind = index_origin::bounded;
  origin.position[0] = b;
  return checked_index<I>(value, origin);
}

#else

template <class View, class... Is>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from(const View& indices, Is... is) {
  using value_type = std::remove_cv_t<typename View::element_type>;
  static_assert(detail::is_integer_v<value_type>, "index_from: the index view's elements must be integers");
  return checked_index<value_type>(indices(is...));
}

template <class View, class I, std::size_t Rank>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE checked_index<std::remove_cv_t<typename View::element_type>>
index_from(const View& indices, const I (&idx)[Rank], cuda::std::source_location = {}) {
  using value_type = std::remove_cv_t<typename View::element_type>;
  return checked_index<value_type>(indices.at(idx));
}

template <class I, class B>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE constexpr checked_index<I> bounded(I value, B) noexcept {
  static_assert(detail::is_integer_v<I> && detail::is_integer_v<B>, "bounded: value and bound must be integers");
  return checked_index<I>(value);
}

#endif

CUGUARD_IMPL_END_NAMESPACE
