// SPDX-License-Identifier: Apache-2.0
// checked_view's element accesses, defined. Checks on: the predicate of detail/record/access_check.hpp
// (one unlikely branch per access in device code); the cold side is detail::fail_access. Checks
// off: pointer arithmetic.
#pragma once
// Part of <cuguard/checked_view.hpp>, which includes it after the class.

#include <cuguard/detail/platform/device.hpp>
#include <cuguard/detail/record/access_check.hpp>

CUGUARD_IMPL_BEGIN_NAMESPACE

#if CUGUARD_IMPL_CHECKS

#  if CUGUARD_IMPL_EMULATION
namespace detail {
/// Emulation: what note_shared_access passes the race detector to describe an access it keeps.
template <class View, std::size_t Rank>
struct shared_access_context {
  const View* view;
  operation op;
  int width;
  const std::int64_t* idx;
  const cuda::std::source_location* where;

  static void describe(platform::shared_access& a, const void* context) {
    using element_type = typename View::element_type;
    const shared_access_context& c = *static_cast<const shared_access_context*>(context);
    a.label = c.view->label();
    a.type = type_name<std::remove_cv_t<element_type>>::value;
    a.type_const = std::is_const<element_type>::value;
    a.op = c.op;
    a.rank = static_cast<int>(Rank);
    a.width = c.width;
    for (std::size_t r = 0; r < Rank; ++r) {
      a.index[r] = c.idx[r];
      a.extent[r] = c.view->extent(r);
      a.stride[r] = c.view->stride(r);
    }
    a.site = {c.where->file_name(), c.where->function_name(), static_cast<unsigned>(c.where->line())};
  }
};

/// Emulation: an access of `width` elements (0: one) at `idx` of a view of shared memory, for
/// the race detector of the running block (through the device seam).
template <class View, std::size_t Rank>
__attribute__((noinline)) void note_shared_access(const View& view, operation op, int width, const std::int64_t (&idx)[Rank],
                                              const cuda::std::source_location& where, const void* element) {
  const shared_access_context<View, Rank> context{&view, op, width, idx, &where};
  const platform::source_site site{where.file_name(), where.function_name(), static_cast<unsigned>(where.line())};
  const platform::access_kind kind = op == operation::vector_store ? platform::access_kind::store
                                     : op == operation::vector_load ? platform::access_kind::load
                                                                    : platform::access_kind::either;
  platform::note_shared(const_cast<void*>(static_cast<const volatile void*>(element)),
                        sizeof(typename View::element_type), width == 0 ? 1 : width, kind, site,
                        &shared_access_context<View, Rank>::describe, &context);
}
} // namespace detail
// Where CUGUARD_IMPL_FAILS_AGAIN (below) found an access of shared memory that passes. Copies
// of the indices and the caller's location, made on this path alone: passing the originals by
// reference made every checked access store them to the stack first.
#    define CUGUARD_IMPL_NOTE_SHARED(op, width, element)                                                 \
      {                                                                                                   \
        std::int64_t noted[Rank];                                                                         \
        for (std::size_t r = 0; r < Rank; ++r) noted[r] = idx[r];                                         \
        const cuda::std::source_location noted_where = i0.where;                                          \
        detail::note_shared_access(*this, op, width, noted, noted_where, element);                        \
      }
namespace detail {
/// Emulation: true where an access of memory of `space` needs no more than its bounds and
/// lifetime checked where this OS thread runs now (platform::watched_spaces): one bit test of a
/// thread_local in place of the test of where the code runs and a branch for shared memory.
CUGUARD_IMPL_FORCEINLINE bool space_unwatched(memory_space space) noexcept {
  return ((platform::watched_spaces >> static_cast<unsigned>(space)) & 1u) == 0;
}
} // namespace detail
// The fast path's space check. An access that fails it fails, unless its memory is shared
// memory (watched in kernels alone, never a wrong space) and the check without the space
// passes: then it is one for the race detector.
#    define CUGUARD_IMPL_SPACE_FAST detail::space_unwatched(meta_.space)
#    define CUGUARD_IMPL_FAILS_AGAIN(check_but_space) (meta_.space != memory_space::shared || (check_but_space))
#  else
#    define CUGUARD_IMPL_NOTE_SHARED(op, width, element) (void)0
#    define CUGUARD_IMPL_SPACE_FAST space_ok()
#    define CUGUARD_IMPL_FAILS_AGAIN(check_but_space) true
#  endif

template <class T, std::size_t Rank, class Index>
template <class First, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::access(
    const First& i0, Rest... rest) const -> T& {
  static_assert(sizeof...(Rest) + 1 == Rank, "checked_view: wrong number of indices");
  static_assert((detail::is_index_v<Rest> && ...), "checked_view: indices must be integers or checked_index");
  const std::int64_t idx[Rank] = {i0.value, detail::index_value(rest)...};
  if (CUGUARD_IMPL_UNLIKELY(detail::access_fails(CUGUARD_IMPL_SPACE_FAST, detail::alive(meta_.token), idx, extents_))) {
    if (CUGUARD_IMPL_FAILS_AGAIN(detail::access_fails(true, detail::alive(meta_.token), idx, extents_)))
      return detail::fail_access(*this, operation::access, 0, i0, rest...);
    CUGUARD_IMPL_NOTE_SHARED(operation::access, 0, data_ + offset(idx));
  }
  detail::assume_inside(idx, extents_);
  return data_[offset(idx)];
}

template <class T, std::size_t Rank, class Index>
template <class I, std::size_t... K>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::at_array(
    const I (&idx)[Rank], const location& where, std::index_sequence<0, K...>) const -> T& {
  static_assert(detail::is_index_v<I>, "checked_view: indices must be integers or checked_index");
  if constexpr (detail::is_checked_index<I>::value) {
    return access(detail::first_checked_index(idx[0], where), idx[K]...);
  } else {
    return access(detail::first_index(idx[0], where), idx[K]...);
  }
}

template <class T, std::size_t Rank, class Index>
template <int N, class First, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::vector_load(
    const First& i0, Rest... rest) const -> vec<value_type, N> {
  static_assert(sizeof...(Rest) + 1 == Rank, "checked_view: wrong number of indices");
  const std::int64_t idx[Rank] = {i0.value, detail::index_value(rest)...};
  if (CUGUARD_IMPL_UNLIKELY(vector_fails<N>(idx, CUGUARD_IMPL_SPACE_FAST))) {
    if (CUGUARD_IMPL_FAILS_AGAIN(vector_fails<N>(idx, true))) {
      detail::fail_access(*this, operation::vector_load, N, i0, rest...);
      return vec<value_type, N>{};
    }
    CUGUARD_IMPL_NOTE_SHARED(operation::vector_load, N, data_ + offset(idx));
  }
  return detail::read_vec<value_type, N>(data_ + offset(idx));
}

template <class T, std::size_t Rank, class Index>
template <int N, class First, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::vector_store(
    vec<value_type, N> x, const First& i0, Rest... rest) const -> void {
  static_assert(!std::is_const<T>::value, "checked_view: cannot store through a view of const elements");
  static_assert(sizeof...(Rest) + 1 == Rank, "checked_view: wrong number of indices");
  const std::int64_t idx[Rank] = {i0.value, detail::index_value(rest)...};
  if (CUGUARD_IMPL_UNLIKELY(vector_fails<N>(idx, CUGUARD_IMPL_SPACE_FAST))) {
    if (CUGUARD_IMPL_FAILS_AGAIN(vector_fails<N>(idx, true))) {
      detail::fail_access(*this, operation::vector_store, N, i0, rest...);
      return;
    }
    CUGUARD_IMPL_NOTE_SHARED(operation::vector_store, N, data_ + offset(idx));
  }
  detail::write_vec<value_type, N>(data_ + offset(idx), x);
}

template <class T, std::size_t Rank, class Index>
template <int N>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::vector_fails(
    const std::int64_t (&idx)[Rank], bool space_fine) const noexcept -> bool {
  // The address in wrapping unsigned arithmetic: the indices may be far out of range.
  const std::uint64_t address = detail::address_of(data_) + wrapping_offset(idx, std::make_index_sequence<Rank>{}) * sizeof(T);
  return detail::vector_access_fails<N, T>(space_fine, detail::alive(meta_.token), idx, extents_, strides_, address);
}

#  undef CUGUARD_IMPL_NOTE_SHARED
#  undef CUGUARD_IMPL_SPACE_FAST
#  undef CUGUARD_IMPL_FAILS_AGAIN

#else

template <class T, std::size_t Rank, class Index>
template <class... Is>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::operator()(Is... is) const noexcept
    -> T& {
  static_assert(sizeof...(Is) == Rank, "checked_view: wrong number of indices");
  static_assert((detail::is_index_v<Is> && ...), "checked_view: indices must be integers or checked_index");
  const Index idx[Rank] = {static_cast<Index>(is)...};
  return data_[offset(idx)];
}

template <class T, std::size_t Rank, class Index>
template <class I, std::size_t... K>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::at_array(
    const I (&idx)[Rank], std::index_sequence<K...>) const noexcept -> T& {
  const Index narrow[Rank] = {static_cast<Index>(idx[K])...};
  return data_[offset(narrow)];
}

template <class T, std::size_t Rank, class Index>
template <class I>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::at(const I (&idx)[Rank],
                                                                                  location) const noexcept -> T& {
  static_assert(detail::is_index_v<I>, "checked_view: indices must be integers or checked_index");
  return at_array(idx, std::make_index_sequence<Rank>{});
}

template <class T, std::size_t Rank, class Index>
template <class I>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::operator[](I i) const noexcept -> T& {
  static_assert(Rank == 1, "checked_view: operator[] needs a rank-1 view; use operator() for more indices");
  return (*this)(i);
}

template <class T, std::size_t Rank, class Index>
template <int N, class... Is>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::load(Is... is) const noexcept
    -> vec<value_type, N> {
  static_assert(sizeof...(Is) == Rank, "checked_view: wrong number of indices");
  const Index idx[Rank] = {static_cast<Index>(is)...};
  return detail::read_vec<value_type, N>(data_ + offset(idx));
}

template <class T, std::size_t Rank, class Index>
template <int N, class... Is>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto checked_view<T, Rank, Index>::store(vec<value_type, N> x,
                                                                                     Is... is) const noexcept -> void {
  static_assert(!std::is_const<T>::value, "checked_view: cannot store through a view of const elements");
  static_assert(sizeof...(Is) == Rank, "checked_view: wrong number of indices");
  const Index idx[Rank] = {static_cast<Index>(is)...};
  detail::write_vec<value_type, N>(data_ + offset(idx), x);
}

#endif

CUGUARD_IMPL_END_NAMESPACE
