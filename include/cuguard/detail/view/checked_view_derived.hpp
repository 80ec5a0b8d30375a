// SPDX-License-Identifier: Apache-2.0
// checked_view's derived views, defined: slice, select, permute, transpose, reshape, relabel,
// with_launch_number, to_mdspan.
// Each checks its arguments first; in device code a failed check stops the thread or traps, or,
// under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE, returns an emptied view.
#pragma once
// Part of <cuguard/checked_view.hpp>, which includes it after the class.


CUGUARD_IMPL_BEGIN_NAMESPACE

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::slice(
    std::size_t dim, std::int64_t begin, std::int64_t end, location where) const -> checked_view {
  checked_view out = *this;
  if constexpr (checks) {
    if (CUGUARD_IMPL_UNLIKELY(dim >= Rank)) return bad_dim(operation::slice, dim, where);
    // Checked as given, before any narrowing to Index.
    if (CUGUARD_IMPL_UNLIKELY(begin < 0 || end < begin || end > extents_[dim])) {
      detail::fail_view(*this, violation_kind::out_of_bounds, operation::slice, static_cast<int>(dim),
                        {begin, end, 0, shape_figure::none},
                        {{}, 0}, where);
      return emptied<Rank>();
    }
  }
  // As narrow does. (Checked builds: where that pointer can be formed, see detail::can_offset;
  // the data is kept otherwise, and by a view of null data.)
  if (!checks || detail::can_offset(data_, static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(strides_[dim])))
    out.data_ = data_ + begin * strides_[dim];
  out.extents_[dim] = static_cast<Index>(end - begin);
  return out;
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::select(
    std::size_t dim, std::int64_t i, location where) const -> checked_view<T, Rank - 1, Index> {
  static_assert(Rank >= 2, "checked_view: select needs rank 2 or more; use operator[] on a rank-1 view");
  if constexpr (checks) {
    if (CUGUARD_IMPL_UNLIKELY(dim >= Rank)) {
      bad_dim(operation::select, dim, where);
      return emptied<Rank - 1>();
    }
    if (CUGUARD_IMPL_UNLIKELY(i < 0 || i >= extents_[dim])) {
      detail::fail_view(*this, violation_kind::out_of_bounds, operation::select, static_cast<int>(dim),
                        {i, 0, 0, shape_figure::none},
                        {{}, 0}, where);
      return emptied<Rank - 1>();
    }
  }
  Index ext[Rank - 1] = {};
  Index str[Rank - 1] = {};
  for (std::size_t r = 0, k = 0; r < Rank; ++r) {
    if (r == dim) continue;
    ext[k] = extents_[r];
    str[k] = strides_[r];
    ++k;
  }
  // (Checked builds: where that pointer can be formed, as in slice.)
  const bool moves = !checks || detail::can_offset(data_, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(strides_[dim]));
  T* const data = moves ? data_ + i * strides_[dim] : data_;
  return checked_view<T, Rank - 1, Index>(detail::raw_tag{}, data, ext, str, meta());
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::permute(
    const int (&order)[Rank], location where) const -> checked_view {
  if constexpr (checks) {
    bool seen[Rank] = {};
    bool ok = true;
    for (std::size_t r = 0; r < Rank; ++r) {
      const int d = order[r];
      if (d < 0 || d >= static_cast<int>(Rank) || seen[d]) {
        ok = false;
        break;
      }
      seen[d] = true;
    }
    if (CUGUARD_IMPL_UNLIKELY(!ok)) {
      detail::dims given{{}, static_cast<int>(Rank)};
      for (std::size_t r = 0; r < Rank; ++r) given.v[r] = order[r];
      detail::fail_view(*this, violation_kind::invalid_argument, operation::permute, -1, {}, given, where);
      return emptied<Rank>();
    }
  }
  checked_view out = *this;
  for (std::size_t r = 0; r < Rank; ++r) {
    out.extents_[r] = extents_[order[r]];
    out.strides_[r] = strides_[order[r]];
  }
  return out;
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::transpose(
    std::size_t a, std::size_t b, location where) const -> checked_view {
  if constexpr (checks) {
    if (CUGUARD_IMPL_UNLIKELY(a >= Rank)) return bad_dim(operation::permute, a, where);
    if (CUGUARD_IMPL_UNLIKELY(b >= Rank)) return bad_dim(operation::permute, b, where);
  }
  checked_view out = *this;
  out.extents_[a] = extents_[b];
  out.strides_[a] = strides_[b];
  out.extents_[b] = extents_[a];
  out.strides_[b] = strides_[a];
  return out;
}

template <class T, std::size_t Rank, class Index>
template <std::size_t N>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::reshape(
    const detail::integer (&extents)[N], location where) const -> checked_view<T, N, Index> {
  static_assert(N >= 1 && N <= static_cast<std::size_t>(violation::max_rank), "reshape: rank must be 1 to 8");
  Index ext[N] = {};
  Index str[N] = {};
  Index stride = 1;
  for (std::size_t r = N; r-- > 0;) {
    ext[r] = static_cast<Index>(extents[r].value);
    str[r] = stride;
    stride = detail::next_row_major_stride(stride, ext[r]);
  }
  if constexpr (checks) {
    // The element count asked for, saturated above the int64 maximum (a wrapped count could
    // equal size()): reported as more than that maximum. A negative extent counts -1.
    constexpr auto max = static_cast<std::uint64_t>(detail::max_of<std::int64_t>);
    std::uint64_t asked = 1;
    bool negative = false;
    for (std::size_t r = 0; r < N; ++r) {
      negative |= extents[r].value < 0;
      asked = detail::add_count(asked, static_cast<std::uint64_t>(extents[r].value));
    }
    const bool past_max = !negative && asked > max;
    const std::int64_t count = negative ? -1 : past_max ? static_cast<std::int64_t>(max) : static_cast<std::int64_t>(asked);
    const bool bad_shape = negative || asked != static_cast<std::uint64_t>(size());
    if (CUGUARD_IMPL_UNLIKELY(!is_contiguous() || bad_shape)) {
      detail::dims shape{{}, static_cast<int>(N)};
      for (std::size_t r = 0; r < N; ++r) shape.v[r] = extents[r].value;
      if (!is_contiguous())
        detail::fail_view(*this, violation_kind::non_contiguous, operation::reshape, -1, {}, shape, where);
      else
        detail::fail_view(*this, violation_kind::shape_mismatch, operation::reshape, -1,
                          {count, 0, static_cast<std::int64_t>(size()),
                           past_max ? shape_figure::element_count : shape_figure::none},
                          shape, where);
      return emptied<N>();
    }
    // The same number of elements, so with elements every extent fits Index and the largest
    // offset is the count less one. Without, an extent may not fit (an int32 view's {2^32, 0});
    // its offsets are not checked, as a new view's are not (it reaches nothing).
    if (CUGUARD_IMPL_UNLIKELY(asked == 0) && !reshape_fits(extents, ext, where)) return emptied<N>();
  }
  return checked_view<T, N, Index>(detail::raw_tag{}, data_, ext, str, meta());
}

#if CUGUARD_IMPL_CHECKS
template <class T, std::size_t Rank, class Index>
template <std::size_t N>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::reshape_fits(const detail::integer (&asked)[N], const Index (&ext)[N],
                                                                   const location& where) const -> bool {
  for (std::size_t r = 0; r < N; ++r) {
    if (asked[r].value != ext[r]) {
      detail::fail_view(*this, violation_kind::index_overflow, operation::reshape, static_cast<int>(r),
                        {asked[r].value, 0, static_cast<std::int64_t>(detail::max_of<Index>), shape_figure::extent},
                        {{}, 0}, where);
      return false;
    }
  }
  return true;
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::layout_strides(Index (&str)[Rank], const location& where) const
    -> bool {
  for (std::size_t r = 0; r < Rank; ++r) {
    str[r] = strides_[r];
    if (strides_[r] <= 0) {
      detail::fail_view(*this, violation_kind::invalid_argument, operation::to_mdspan, static_cast<int>(r),
                        {strides_[r], 0, 0, shape_figure::stride}, {{}, 0}, where);
      return false;
    }
  }
  // C++23's condition for a layout_stride mapping: some order of the dimensions in which each
  // stride is at least the one before times its extent (detail::strides_have_order), and the
  // required span size, largest offset + 1, representable in Index: 0 for a view without elements.
  bool empty = false;
  std::uint64_t largest = 0;
  for (std::size_t r = 0; r < Rank; ++r) {
    empty |= extents_[r] == 0;
    largest = detail::add_reach(largest, static_cast<std::uint64_t>(extents_[r]), static_cast<std::uint64_t>(strides_[r]));
  }
  const bool unique = detail::strides_have_order(extents_, strides_);
  const bool span_fits = empty || largest < static_cast<std::uint64_t>(detail::max_of<Index>);
  // A view without elements that libcu++'s checks would refuse (they ask the order by stride, and
  // the span in Index up to the first extent of 0) is mapped with strides they take: it reaches
  // no element with either.
  const bool remapped = unique && empty && !detail::libcudacxx_maps(extents_, strides_);
  if (!unique || !span_fits || (remapped && !detail::empty_view_strides(extents_, str))) {
    detail::fail_view(*this, violation_kind::invalid_argument, operation::to_mdspan, -1,
                      {static_cast<std::int64_t>(largest), 0, static_cast<std::int64_t>(detail::max_of<Index>),
                       unique ? shape_figure::largest_offset : shape_figure::none},
                      {{}, 0}, where);
    return false;
  }
  return true;
}
#endif

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::relabel(const char* label) const noexcept -> checked_view {
  checked_view out = *this;
#if CUGUARD_IMPL_CHECKS
  out.meta_.label = label;
  out.meta_.label_on_host = !CUGUARD_IMPL_DEVICE_PASS;
#else
  (void)label;
#endif
  return out;
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::with_launch_number(std::uint64_t launch) const noexcept
    -> checked_view {
  checked_view out = *this;
#if CUGUARD_IMPL_CHECKS
  out.meta_.launch = launch;
#else
  (void)launch;
#endif
  return out;
}

template <class T, std::size_t Rank, class Index>
template <class Deferred>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::to_mdspan(location where) const ->
    typename detail::mdspan_for<T, Rank, Index, Deferred>::type {
  using maker = detail::mdspan_for<T, Rank, Index, Deferred>;
#if CUGUARD_IMPL_CHECKS
  Index str[Rank];
  if (CUGUARD_IMPL_UNLIKELY(!layout_strides(str, where))) {
    const Index zero[Rank] = {};
    Index one[Rank];
    for (std::size_t r = 0; r < Rank; ++r) one[r] = 1;
    return maker::make(data_, zero, one);
  }
  return maker::make(data_, extents_, str);
#else
  (void)where;
#endif
  return maker::make(data_, extents_, strides_);
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::bad_dim(operation op, std::size_t dim, const location& where) const -> checked_view {
  detail::fail_view(*this, violation_kind::invalid_argument, op, static_cast<int>(dim), {}, {{}, 0}, where);
  return emptied<Rank>();
}

template <class T, std::size_t Rank, class Index>
template <std::size_t N>
CUGUARD_HOST_DEVICE auto checked_view<T, Rank, Index>::emptied() const noexcept -> checked_view<T, N, Index> {
  const Index zero[N] = {};
  Index one[N];
  for (std::size_t r = 0; r < N; ++r) one[r] = 1;
  return checked_view<T, N, Index>(detail::raw_tag{}, data_, zero, one, meta());
}

CUGUARD_IMPL_END_NAMESPACE
