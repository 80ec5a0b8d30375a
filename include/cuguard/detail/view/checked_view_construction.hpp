// SPDX-License-Identifier: Apache-2.0
// checked_view's construction, defined: the constructors from parts, a view of an mdspan, and
// (checks on) the checks of a new view: shape, reach, null data and (host) the tracked
// allocation it lies in.
#pragma once
// Part of <cuguard/checked_view.hpp>, which includes it after the class.

#include <cuguard/detail/platform/device.hpp>

CUGUARD_IMPL_BEGIN_NAMESPACE

template <class T, std::size_t Rank, class Index>
template <std::size_t... K>
CUGUARD_HOST_DEVICE constexpr checked_view<T, Rank, Index>::checked_view(
    detail::shape_tag, T* data, const detail::integer (&extents)[Rank], std::index_sequence<K...>) noexcept
    : data_(data),
      extents_{static_cast<Index>(extents[K].value)...},
      strides_{detail::row_major_stride<Index, K + 1>(extents)...} {}

template <class T, std::size_t Rank, class Index>
template <std::size_t... K>
CUGUARD_HOST_DEVICE constexpr checked_view<T, Rank, Index>::checked_view(
    detail::shape_tag, T* data, const detail::integer (&extents)[Rank], const detail::integer (&strides)[Rank],
    std::index_sequence<K...>) noexcept
    : data_(data), extents_{static_cast<Index>(extents[K].value)...}, strides_{static_cast<Index>(strides[K].value)...} {}

template <class T, std::size_t Rank, class Index>
template <std::size_t... K>
CUGUARD_HOST_DEVICE constexpr checked_view<T, Rank, Index>::checked_view(
    detail::raw_tag, T* data, const Index* extents, const Index* strides, const detail::view_meta& m,
    std::index_sequence<K...>) noexcept
    : data_(data), extents_{extents[K]...}, strides_{strides[K]...} {
#if CUGUARD_IMPL_CHECKS
  meta_ = m;
#else
  (void)m;
#endif
}

template <class T, std::size_t Rank, class Index>
template <class M>
CUGUARD_HOST_DEVICE checked_view<T, Rank, Index>::checked_view(const M& m, const char* label, location where) {
  using traits = detail::mdspan_traits<M>;
  static_assert(traits::is_mdspan, "checked_view: construct a view from a pointer and extents, or from a "
                                   "cuda::std::mdspan (include <cuguard/mdspan.hpp>)");
  if constexpr (traits::is_mdspan) {
    static_assert(traits::rank == Rank, "checked_view: the mdspan has another rank");
    static_assert(traits::template element_is<T>, "checked_view: the mdspan has another element type");
    static_assert(traits::default_accessor, "checked_view: only mdspans with the default accessor can be viewed");
    static_assert(traits::strided, "checked_view: only strided mdspan layouts can be viewed");
    data_ = m.data_handle();
    // The mdspan's numbers as given, for init to check what Index kept of them.
    detail::integer ext[Rank];
    detail::integer str[Rank];
    for (std::size_t r = 0; r < Rank; ++r) {
      ext[r] = detail::integer(m.extent(r));
      str[r] = detail::integer(m.stride(r));
      extents_[r] = static_cast<Index>(ext[r].value);
      strides_[r] = static_cast<Index>(str[r].value);
    }
    if constexpr (checks && traits::packed != 0) {
      // layout_right and layout_left: strides from the extents as a row-major view's (PyTorch's
      // rule, which differs from the mapping only where an extent is 0), checked as those are.
      Index stride = 1;
      for (std::size_t k = 0; k < Rank; ++k) {
        const std::size_t r = traits::packed > 0 ? Rank - 1 - k : k;
        strides_[r] = stride;
        stride = detail::next_row_major_stride(stride, extents_[r]);
      }
      init(label, where, ext, nullptr);
    } else {
      init(label, where, ext, str);
    }
  }
}

#if CUGUARD_IMPL_CHECKS

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::init(
    const char* label, const location& where, const detail::integer* ext, const detail::integer* str) -> void {
  meta_.label = label;
  meta_.label_on_host = !CUGUARD_IMPL_DEVICE_PASS;
  std::uint64_t largest = 0; // largest offset, saturated
  std::uint64_t count = 1;   // element count, saturated
  if (!check_shape(where, ext, str, largest, count)) return;
  // A view without elements reaches nothing: its offsets are not checked (a slice or select of
  // it moves the data pointer only where that stays a pointer: detail::can_offset), nor is it
  // bound to an allocation.
  if (count == 0) return;
  if (!check_reach(where, largest, count)) return make_empty();
#if !CUGUARD_IMPL_DEVICE_PASS
  // Data aligned for T makes every element access aligned (offsets are whole elements): checked
  // once here, on the host (and under emulation), not at each access.
  const auto address = reinterpret_cast<std::uintptr_t>(data_);
  if (CUGUARD_IMPL_UNLIKELY(address % alignof(T) != 0)) {
    detail::fail_view(*this, violation_kind::misaligned, operation::make_view, -1,
                      {static_cast<std::int64_t>(address), 0, static_cast<std::int64_t>(alignof(T)), shape_figure::none},
                      {{}, 0}, where);
    return make_empty();
  }
  if (!detail::platform::in_kernel()) bind_allocation(where, largest); // not an emulated kernel's tile
#  if CUGUARD_IMPL_EMULATION
  // A view made in an emulated kernel over the block's shared memory: its accesses go to the
  // race detector.
  else if (detail::platform::is_shared(data_))
    meta_.space = memory_space::shared;
#  endif
#endif
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::check_shape(
    const location& where, const detail::integer* ext, const detail::integer* str, std::uint64_t& largest,
    std::uint64_t& count) -> bool {
  // Both saturated at 2^63 (detail::shape_cap), above every Index maximum, so that check_reach
  // sees any that is too big (a cap equal to the int64 maximum let every int64 view through).
  // A row-major view's strides come from its extents (saturated, never negative): only given
  // strides are checked, so that a bad extent is reported at its own dimension.
  // A view without elements reaches nothing through its strides: a given stride its Index cannot
  // hold is held at the Index maximum (as a row-major view's is), not reported (an int32
  // accessor of an empty batch, `torch.empty(0, 70000, 70000)`).
  bool elements = true;
  for (std::size_t r = 0; r < Rank; ++r) elements &= (ext ? ext[r].value : extents_[r]) != 0;
  const int checked_numbers = str != nullptr ? 2 : 1;
  for (std::size_t r = 0; r < Rank; ++r) {
    const std::int64_t given[2] = {ext ? ext[r].value : extents_[r], str ? str[r].value : strides_[r]};
    const std::int64_t kept[2] = {extents_[r], strides_[r]};
    for (int k = 0; k < checked_numbers; ++k) {
      if (CUGUARD_IMPL_UNLIKELY(given[k] < 0)) {
        detail::fail_view(*this, violation_kind::invalid_argument, operation::make_view, static_cast<int>(r),
                          {given[k], 0, 0, k == 0 ? shape_figure::extent : shape_figure::stride}, {{}, 0}, where);
        make_empty();
        return false;
      }
      if (k == 1 && !elements && given[k] > static_cast<std::int64_t>(detail::max_of<Index>)) {
        strides_[r] = detail::max_of<Index>;
        continue;
      }
      if (CUGUARD_IMPL_UNLIKELY(given[k] != kept[k])) {
        detail::fail_view(*this, violation_kind::index_overflow, operation::make_view, static_cast<int>(r),
                          {given[k], 0, static_cast<std::int64_t>(detail::max_of<Index>),
                           k == 0 ? shape_figure::extent : shape_figure::stride},
                          {{}, 0}, where);
        make_empty();
        return false;
      }
    }
    count = detail::add_count(count, static_cast<std::uint64_t>(extents_[r]));
    largest = detail::add_reach(largest, static_cast<std::uint64_t>(extents_[r]), static_cast<std::uint64_t>(strides_[r]));
  }
  return true;
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::check_reach(
    const location& where, std::uint64_t largest, std::uint64_t count) -> bool {
  // (A pointer into a __shared__ array is not null, and nvcc knows it is shared: the check
  // folds away, and a tile's extents and strides stay constants instead of becoming values
  // that an emptied view could have zeroed, which cost the checked gemm 15 registers.)
  if (CUGUARD_IMPL_UNLIKELY(data_ == nullptr && !detail::in_shared_memory(data_))) {
    detail::fail_view(*this, violation_kind::null_data, operation::make_view, -1,
                      {static_cast<std::int64_t>(count), 0, 0, shape_figure::none}, {{}, 0}, where);
    return false;
  }
  return reach_fits(operation::make_view, largest, count, where);
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::reach_fits(operation op, std::uint64_t largest, std::uint64_t count,
                                                                 const location& where) const -> bool {
  constexpr auto max = static_cast<std::uint64_t>(detail::max_of<Index>);
  // An offset in elements that fits Index may still be too far for a pointer: in bytes it must
  // fit ptrdiff_t (2^62 floats are 2^64 bytes, which wrap to the same address).
  constexpr auto max_pointer_offset = static_cast<std::uint64_t>(detail::max_of<std::int64_t>) / sizeof(T);
  if (CUGUARD_IMPL_UNLIKELY(largest > max || largest > max_pointer_offset || count > max)) {
    const shape_figure figure = largest > max                  ? shape_figure::largest_offset
                                : largest > max_pointer_offset ? shape_figure::pointer_offset
                                                               : shape_figure::element_count;
    // The figure as unsigned bits: a saturated one (2^63) reads "or more" in the report.
    const std::uint64_t value = figure == shape_figure::element_count ? count : largest;
    const std::uint64_t limit = figure == shape_figure::pointer_offset ? max_pointer_offset : max;
    detail::fail_view(*this, violation_kind::index_overflow, op, -1,
                      {static_cast<std::int64_t>(value), 0, static_cast<std::int64_t>(limit), figure}, {{}, 0}, where);
    return false;
  }
  return true;
}

#if !CUGUARD_IMPL_DEVICE_PASS
template <class T, std::size_t Rank, class Index>
auto checked_view<T, Rank, Index>::bind_allocation(const location& where, std::uint64_t largest) -> void {
  // largest fits int64 here (check_reach); the bytes the view spans may not: saturated, as a
  // view that large fits no allocation.
  constexpr std::uint64_t max_bytes = static_cast<std::uint64_t>(detail::max_of<std::int64_t>);
  const std::uint64_t bytes = largest < max_bytes / sizeof(T) ? (largest + 1) * sizeof(T) : max_bytes;
  // The allocation holding data_, or one the view runs into from before it.
  const detail::allocation_span found = detail::locate_allocation(data_, static_cast<std::size_t>(bytes));
  detail::argument_made(found);
  meta_.space = found.space;
  meta_.device = found.device;
  if (!found.tracked) return;
  // The view's first byte in the allocation (wrapped where it starts before it: reported negative).
  const std::uint64_t first = reinterpret_cast<std::uintptr_t>(data_) - found.begin;
  if (CUGUARD_IMPL_UNLIKELY(bytes > found.bytes || first > found.bytes - bytes)) {
    detail::fail_allocation(*this, found, static_cast<std::int64_t>(first), static_cast<std::int64_t>(bytes), where);
    return make_empty();
  }
  meta_.token = found.token;
}
#endif

#endif

CUGUARD_IMPL_END_NAMESPACE
