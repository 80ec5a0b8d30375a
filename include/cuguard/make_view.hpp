// SPDX-License-Identifier: Apache-2.0
// make_view and make_strided_view: views over existing memory, `make_view(p, {rows, cols}, "x")`.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/index_args.hpp>

#include <cuda/std/source_location>

#include <cstddef>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// A contiguous row-major view: `make_view(p, {rows, cols}, "x")`.
template <std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank> make_view(
    T* data, const detail::integer (&extents)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank>(data, extents, label, where);
}

template <class I, std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank> make_view(
    T* data, const I (&extents)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank>(data, detail::to_integers(extents).v, label, where);
}

/// A strided view: `make_strided_view(p, {rows, cols}, {1, rows}, "xt")`.
template <std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank> make_strided_view(
    T* data, const detail::integer (&extents)[Rank], const detail::integer (&strides)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank>(data, extents, strides, label, where);
}

template <class I, class J, std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank> make_strided_view(
    T* data, const I (&extents)[Rank], const J (&strides)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank>(data, detail::to_integers(extents).v, detail::to_integers(strides).v, label, where);
}

CUGUARD_IMPL_END_NAMESPACE
