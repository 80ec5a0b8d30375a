// SPDX-License-Identifier: Apache-2.0
// expect_contiguous, expect_shape, expect_finite: assertions on views, where a kernel depends on them.
#pragma once
// Part of <cuguard/checked_view.hpp>, which includes it after the class.

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/detail/index/index_args.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Asserts that `v` is contiguous (row-major, packed); a non_contiguous violation otherwise.
/// Put it where a kernel depends on contiguity. Not evaluated when checks are off.
template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void expect_contiguous(
    const checked_view<T, Rank, Index>& v, cuda::std::source_location where = cuda::std::source_location::current()) {
#if CUGUARD_IMPL_CHECKS
  if (CUGUARD_IMPL_UNLIKELY(!v.is_contiguous())) {
    detail::dims expected{{}, static_cast<int>(Rank)};
    std::int64_t stride = 1;
    for (std::size_t r = Rank; r-- > 0;) {
      expected.v[r] = stride;
      stride *= v.extent(r);
    }
    detail::fail_view(v, violation_kind::non_contiguous, operation::expect_contiguous, -1, {}, expected, where);
  }
#else
  (void)v, (void)where;
#endif
}

template <class T, std::size_t Rank, class Index, std::size_t N>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void expect_shape(
    const checked_view<T, Rank, Index>& v, const detail::integer (&extents)[N],
    cuda::std::source_location where = cuda::std::source_location::current());

/// Asserts that `v` has exactly the given extents; a shape_mismatch violation naming the first
/// differing dimension (or the rank) otherwise. Not evaluated when checks are off.
template <class T, std::size_t Rank, class Index, class I, std::size_t N>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void expect_shape(
    const checked_view<T, Rank, Index>& v, const I (&extents)[N],
    cuda::std::source_location where = cuda::std::source_location::current()) {
  expect_shape(v, detail::to_integers(extents).v, where);
}

template <class T, std::size_t Rank, class Index, std::size_t N>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void expect_shape(const checked_view<T, Rank, Index>& v,
                                                               const detail::integer (&extents)[N],
                                                               cuda::std::source_location where) {
#if CUGUARD_IMPL_CHECKS
  int dim = -1;
  bool bad = N != Rank;
  for (std::size_t r = 0; !bad && r < Rank; ++r) {
    if (static_cast<std::int64_t>(v.extent(r)) != extents[r].value) {
      bad = true;
      dim = static_cast<int>(r);
    }
  }
  if (CUGUARD_IMPL_UNLIKELY(bad)) {
    detail::dims expected{{}, static_cast<int>(N)};
    for (std::size_t r = 0; r < N && r < static_cast<std::size_t>(violation::max_rank); ++r) expected.v[r] = extents[r].value;
    detail::fail_view(v, violation_kind::shape_mismatch, operation::expect_shape, dim, {}, expected, where);
  }
#else
  (void)v, (void)extents, (void)where;
#endif
}

/// Asserts that `value`, about to be stored at v(i...), is finite: an inf or NaN is reported as
/// non_finite with the view's label and the position (the seed's fp16 overflow). Not a memory
/// check, so kernels opt in where they want it; not evaluated when checks are off.
template <class T, std::size_t Rank, class Index, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void expect_finite(float value, const checked_view<T, Rank, Index>& v,
                                                                detail::first_index i0, Rest... rest) {
#if CUGUARD_IMPL_CHECKS
  static_assert(sizeof...(Rest) + 1 == Rank, "expect_finite: wrong number of indices");
  // value - value is 0 for finite values and NaN for inf and NaN, without <cmath> in device code.
  if (CUGUARD_IMPL_UNLIKELY(!(value - value == 0.0f))) detail::fail_finite(v, static_cast<double>(value), i0, rest...);
#else
  (void)value, (void)v, (void)i0, ((void)rest, ...);
#endif
}

CUGUARD_IMPL_END_NAMESPACE
