// SPDX-License-Identifier: Apache-2.0
// make_view and make_strided_view: views over existing memory, `make_view(p, {rows, cols}, "x")`;
// make_view32 and make_strided_view32 for 32-bit indexing.
#pragma once
// Part of <cuguard/checked_view.hpp>, which includes it after the class.

#include <cuguard/config.hpp>
#include <cuguard/detail/index/index_args.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// A contiguous row-major view: `make_view(p, {rows, cols}, "x")`. Checked builds give it
/// PyTorch's strides, products of the extents each taken as at least 1 (`{1, 4, 0, 5}`: strides
/// `{20, 5, 5, 1}`, as `torch.empty(1, 4, 0, 5)`); unchecked builds the plain products, as raw
/// index arithmetic. They differ only for views without elements.
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

/// make_view of an mdspan (anything with data_handle()) where <cuguard/mdspan.hpp> is not
/// included: fails to compile, saying which header to include. (With it, the overload there,
/// more specialized, is chosen.)
template <class M, class = decltype(static_cast<const M*>(nullptr)->data_handle())>
CUGUARD_HOST_DEVICE void make_view(const M&, const char*,
                                   cuda::std::source_location = cuda::std::source_location::current()) {
  static_assert(sizeof(M*) == 0, "make_view of an mdspan: include <cuguard/mdspan.hpp> (cuda::std::mdspan "
                                 "interop, which <cuguard/cuguard.hpp> leaves out)");
}

/// The same views with 32-bit extents, strides and offsets (checked_view<T, Rank, int>), as
/// PyTorch's packed_accessor32: `make_view32(p, {rows, cols}, "x")`. Index arithmetic in 32 bits
/// is cheaper on the GPU; checked builds report a shape whose extents, strides, largest offset
/// or element count do not fit (index_overflow), where unchecked code would wrap. A view without
/// elements reaches nothing: only its extents must fit, and a stride that does not is held at
/// the int32 maximum (an accessor of an empty batch).
template <std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank, std::int32_t> make_view32(
    T* data, const detail::integer (&extents)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank, std::int32_t>(data, extents, label, where);
}

template <class I, std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank, std::int32_t> make_view32(
    T* data, const I (&extents)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank, std::int32_t>(data, detail::to_integers(extents).v, label, where);
}

/// A strided view with 32-bit extents and strides (see make_view32).
template <std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank, std::int32_t> make_strided_view32(
    T* data, const detail::integer (&extents)[Rank], const detail::integer (&strides)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank, std::int32_t>(data, extents, strides, label, where);
}

template <class I, class J, std::size_t Rank, class T>
CUGUARD_HOST_DEVICE checked_view<T, Rank, std::int32_t> make_strided_view32(
    T* data, const I (&extents)[Rank], const J (&strides)[Rank], const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Rank, std::int32_t>(data, detail::to_integers(extents).v, detail::to_integers(strides).v,
                                             label, where);
}

CUGUARD_IMPL_END_NAMESPACE
