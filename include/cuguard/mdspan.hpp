// SPDX-License-Identifier: Apache-2.0
// cuda::std::mdspan interop: views of mdspans, views to mdspans. A header of its own, so that
// translation units that do not use it do not parse libcu++'s mdspan (<cuguard/cuguard.hpp>
// leaves it out: it doubles a small CUDA file's compile time).
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>

#include <cuda/std/array>
#include <cuda/std/mdspan>
#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

template <class E, class Extents, class Layout, class Accessor>
struct mdspan_traits<cuda::std::mdspan<E, Extents, Layout, Accessor>> {
  static constexpr bool is_mdspan = true;
  static constexpr std::size_t rank = Extents::rank();
  template <class T>
  static constexpr bool element_is = std::is_same<E, T>::value;
  static constexpr bool default_accessor = std::is_same<Accessor, cuda::std::default_accessor<E>>::value;
  static constexpr bool strided = Layout::template mapping<Extents>::is_always_strided();
  // 1 for layout_right, -1 for layout_left: packed layouts whose strides follow from the extents.
  static constexpr int packed = std::is_same<Layout, cuda::std::layout_right>::value  ? 1
                                : std::is_same<Layout, cuda::std::layout_left>::value ? -1
                                                                                      : 0;
  template <class T, std::size_t Rank, class Index>
  static constexpr bool converts_from =
      std::is_same<cuda::std::mdspan<E, Extents, Layout, Accessor>,
                   cuda::std::mdspan<T, cuda::std::dextents<Index, Rank>, cuda::std::layout_stride>>::value;
};

template <class T, std::size_t Rank, class Index>
struct mdspan_for<T, Rank, Index, void> {
  using type = cuda::std::mdspan<T, cuda::std::dextents<Index, Rank>, cuda::std::layout_stride>;
  CUGUARD_HOST_DEVICE static type make(T* data, const Index (&extents)[Rank], const Index (&strides)[Rank]) {
    cuda::std::array<Index, Rank> ext{};
    cuda::std::array<Index, Rank> str{};
    for (std::size_t r = 0; r < Rank; ++r) {
      ext[r] = extents[r];
      str[r] = strides[r];
    }
    using mapping = cuda::std::layout_stride::mapping<cuda::std::dextents<Index, Rank>>;
    return type(data, mapping(cuda::std::dextents<Index, Rank>(ext), str));
  }
};

} // namespace detail

/// The unchecked mdspan type a checked_view<T, Rank, Index> converts to (to_mdspan()).
template <class T, std::size_t Rank, class Index = std::int64_t>
using mdspan_of = typename detail::mdspan_for<T, Rank, Index, void>::type;

/// A view of an mdspan with a strided layout and the default accessor. The view's Index is the
/// mdspan's index type, or its signed twin where that is unsigned (the size_t extents that
/// class template argument deduction gives `mdspan(p, 2, 3)` make an int64 view); checked builds
/// report an extent or stride the Index cannot hold.
template <class T, class Extents, class Layout, class Accessor>
CUGUARD_HOST_DEVICE checked_view<T, Extents::rank(), std::make_signed_t<typename Extents::index_type>> make_view(
    const cuda::std::mdspan<T, Extents, Layout, Accessor>& m, const char* label,
    cuda::std::source_location where = cuda::std::source_location::current()) {
  return checked_view<T, Extents::rank(), std::make_signed_t<typename Extents::index_type>>(m, label, where);
}

CUGUARD_IMPL_END_NAMESPACE
