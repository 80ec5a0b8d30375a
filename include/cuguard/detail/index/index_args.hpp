// SPDX-License-Identifier: Apache-2.0
// What views take as indices, extents and strides: integers of any type, checked_index values,
// and the caller's source position that comes with the first of them.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/facts.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

template <class T>
inline constexpr bool is_integer_v =
    std::is_integral<T>::value && !std::is_same<std::remove_cv_t<T>, bool>::value;

template <class T>
struct is_checked_index : std::false_type {};
} // namespace detail

template <class Index>
class checked_index;

namespace detail {

/// An integer or a checked_index: what views accept as an index.
template <class T>
inline constexpr bool is_index_v = is_integer_v<T> || is_checked_index<T>::value;

/// The first index of an access, when it is an integer. Its converting constructors take the
/// caller's source location as a default argument: that is how a check reports the line of the
/// offending expression. One constructor per integer type (no enable_if: see
/// CUGUARD_IMPL_INTEGER_TYPES); floating-point and bool indices are deleted. Kept to scalars, so
/// that compilers leave it in registers.
struct first_index {
  std::int64_t value;
  cuda::std::source_location where;

#define CUGUARD_IMPL_FIRST_INDEX(I)                                                                     \
  CUGUARD_HOST_DEVICE constexpr first_index(I i, cuda::std::source_location w = cuda::std::source_location::current()) \
      noexcept                                                                                          \
      : value(static_cast<std::int64_t>(i)), where(w) {}
  CUGUARD_IMPL_INTEGER_TYPES(CUGUARD_IMPL_FIRST_INDEX)
#undef CUGUARD_IMPL_FIRST_INDEX
#define CUGUARD_IMPL_NOT_AN_INDEX(F) first_index(F) = delete; // indices must be integers
  CUGUARD_IMPL_NON_INTEGER_ARITHMETIC_TYPES(CUGUARD_IMPL_NOT_AN_INDEX)
#undef CUGUARD_IMPL_NOT_AN_INDEX
};

/// The first index of an access, when it is a checked_index: the value, its origin and the
/// caller's source location (an unconstrained template: it only deduces from checked_index).
struct first_checked_index {
  std::int64_t value;
  origin_info origin;
  cuda::std::source_location where;

  template <class I>
  CUGUARD_HOST_DEVICE constexpr first_checked_index(
      const checked_index<I>& i, cuda::std::source_location w = cuda::std::source_location::current()) noexcept
      : value(static_cast<std::int64_t>(i.value())), origin(i.origin()), where(w) {}
};

template <class I>
CUGUARD_HOST_DEVICE constexpr std::int64_t index_value(const I& i) noexcept {
  if constexpr (std::is_same<I, first_index>::value || std::is_same<I, first_checked_index>::value) {
    return i.value;
  } else if constexpr (is_checked_index<I>::value) {
    return static_cast<std::int64_t>(i.value());
  } else {
    return static_cast<std::int64_t>(i);
  }
}

template <class I>
CUGUARD_HOST_DEVICE constexpr origin_info origin_of(const I& i) noexcept {
  if constexpr (std::is_same<I, first_checked_index>::value) {
    return i.origin;
  } else if constexpr (is_checked_index<I>::value) {
    return i.origin();
  } else {
    return origin_info{};
  }
}

/// An extent or stride argument: any integer type converts to it without a narrowing error
/// (`make_view(p, {n}, "x")` with a size_t n); checked builds then check that it fits Index.
struct integer {
  std::int64_t value;
  CUGUARD_HOST_DEVICE constexpr integer() noexcept : value(0) {}
  // One constructor per integer type, no enable_if (see CUGUARD_IMPL_INTEGER_TYPES).
#define CUGUARD_IMPL_INTEGER(I) \
  CUGUARD_HOST_DEVICE constexpr integer(I i) noexcept : value(static_cast<std::int64_t>(i)) {}
  CUGUARD_IMPL_INTEGER_TYPES(CUGUARD_IMPL_INTEGER)
#undef CUGUARD_IMPL_INTEGER
#define CUGUARD_IMPL_NOT_AN_INTEGER(F) integer(F) = delete; // extents and strides must be integers
  CUGUARD_IMPL_NON_INTEGER_ARITHMETIC_TYPES(CUGUARD_IMPL_NOT_AN_INTEGER)
#undef CUGUARD_IMPL_NOT_AN_INTEGER
};

/// An existing array of integers (`std::int64_t shape[3]`) as extents.
template <std::size_t N>
struct integers {
  integer v[N];
};
template <class I, std::size_t N>
CUGUARD_HOST_DEVICE constexpr integers<N> to_integers(const I (&values)[N]) noexcept {
  static_assert(is_integer_v<I>, "checked_view: extents, strides and shapes must be integers");
  integers<N> out{};
  for (std::size_t r = 0; r < N; ++r) out.v[r] = integer(values[r]);
  return out;
}

/// The largest value of a signed integer type (std::numeric_limits is host code for nvcc).
template <class Index>
inline constexpr Index max_of = static_cast<Index>(static_cast<std::make_unsigned_t<Index>>(-1) >> 1);

/// a * b with two's-complement wrap-around instead of undefined behaviour: strides of a view too
/// large for its index type are computed before the construction check rejects the view.
template <class Index>
CUGUARD_HOST_DEVICE constexpr Index wrapping_mul(Index a, Index b) noexcept {
  using unsigned_index = std::make_unsigned_t<Index>;
  return static_cast<Index>(static_cast<unsigned_index>(a) * static_cast<unsigned_index>(b));
}

/// True where the compiler can tell that `p` points into shared memory (device code; nvcc folds
/// __isShared for a pointer into a __shared__ array). Never true for a null pointer.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool in_shared_memory(const void* p) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  return __isShared(p) != 0;
#else
  (void)p;
  return false;
#endif
}

/// a * b for extents and strides: held at the Index maximum where it passes it (both not
/// negative), wrapping otherwise (a negative extent is reported by the construction check).
template <class Index>
CUGUARD_HOST_DEVICE constexpr Index saturating_mul(Index a, Index b) noexcept {
  if (a < 0 || b < 0) return wrapping_mul(a, b);
  return a != 0 && b > max_of<Index> / a ? max_of<Index> : static_cast<Index>(a * b);
}

/// The largest offset so far plus (extent - 1) * stride of one more dimension, saturated.
CUGUARD_HOST_DEVICE constexpr std::uint64_t add_reach(std::uint64_t largest, std::uint64_t extent,
                                                      std::uint64_t stride) noexcept {
  const std::uint64_t reach = extent > 1 && stride != 0 ? (extent - 1 > shape_cap / stride ? shape_cap : (extent - 1) * stride) : 0;
  return reach > shape_cap - largest ? shape_cap : largest + reach;
}

/// The element count so far times one more extent, saturated.
CUGUARD_HOST_DEVICE constexpr std::uint64_t add_count(std::uint64_t count, std::uint64_t extent) noexcept {
  return extent == 0 ? 0 : (count > shape_cap / extent ? shape_cap : count * extent);
}

/// Strides of `next` are at least `prev`'s stride times its extent (both strides positive):
/// the step of layout_stride's condition below, without the product (which may overflow).
template <class Index>
CUGUARD_HOST_DEVICE constexpr bool stride_follows(Index prev_extent, Index prev_stride, Index next_stride) noexcept {
  return prev_extent == 0 || prev_stride <= next_stride / prev_extent;
}

/// True if the dimensions ordered by stride (ties: the smaller extent first) have each stride at
/// least the one before times its extent (strides positive, which the caller checked). Where every
/// extent is at least 1 this order is the only candidate for layout_stride's condition
/// (strides_have_order), and it is the order libcu++ checks.
template <std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE constexpr bool strides_grow_in_order(const Index (&ext)[Rank], const Index (&str)[Rank]) noexcept {
  std::size_t order[Rank] = {};
  for (std::size_t r = 0; r < Rank; ++r) order[r] = r;
  for (std::size_t i = 1; i < Rank; ++i)
    for (std::size_t j = i; j > 0; --j) {
      const std::size_t a = order[j], b = order[j - 1];
      if (!(str[a] < str[b] || (str[a] == str[b] && ext[a] < ext[b]))) break;
      order[j] = b;
      order[j - 1] = a;
    }
  for (std::size_t i = 1; i < Rank; ++i)
    if (!stride_follows(ext[order[i - 1]], str[order[i - 1]], str[order[i]])) return false;
  return true;
}

/// True if some order of the dimensions has each stride at least the one before times its
/// extent: the condition of C++23 [mdspan.layout.stride.cons] on a layout_stride mapping (strides
/// positive). An extent of 0 asks nothing of the dimension after it, so a view without elements
/// may need another order than by stride (extents {0, 4}, strides {9, 7}: the dimension of 0
/// first): up to rank 8 every order is tried (by the sets of dimensions an order can begin with,
/// and the last of each), above it only the order by stride.
template <std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE constexpr bool strides_have_order(const Index (&ext)[Rank], const Index (&str)[Rank]) noexcept {
  const bool sorted = strides_grow_in_order(ext, str);
  bool empty = false;
  for (std::size_t r = 0; r < Rank; ++r) empty |= ext[r] == 0;
  if (sorted || !empty) return sorted;
  if constexpr (Rank <= 8) {
    // ends[set]: bit d set where some allowed order of the dimensions in `set` ends with d.
    std::uint16_t ends[std::size_t{1} << Rank] = {};
    for (std::size_t d = 0; d < Rank; ++d) ends[std::size_t{1} << d] = static_cast<std::uint16_t>(1u << d);
    for (std::size_t set = 1; set < (std::size_t{1} << Rank); ++set)
      for (std::size_t last = 0; last < Rank; ++last) {
        if (!((ends[set] >> last) & 1u)) continue;
        for (std::size_t d = 0; d < Rank; ++d)
          if (!((set >> d) & 1u) && stride_follows(ext[last], str[last], str[d]))
            ends[set | (std::size_t{1} << d)] |= static_cast<std::uint16_t>(1u << d);
      }
    return ends[(std::size_t{1} << Rank) - 1] != 0;
  } else {
    return false;
  }
}

/// True if libcu++ (CCCL's checks of a layout_stride mapping, CCCL_ENABLE_ASSERTIONS) takes
/// these extents and strides: the order by stride (strides_grow_in_order), and the sum of
/// (extent - 1) * stride over the dimensions before the first extent of 0, in Index. The
/// standard asks less of a view without elements (strides_have_order; its required span is 0).
template <std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE constexpr bool libcudacxx_maps(const Index (&ext)[Rank], const Index (&str)[Rank]) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t r = 0; r < Rank && ext[r] != 0; ++r) sum = add_reach(sum, static_cast<std::uint64_t>(ext[r]), static_cast<std::uint64_t>(str[r]));
  return sum < static_cast<std::uint64_t>(max_of<Index>) && strides_grow_in_order(ext, str);
}

/// Strides libcu++ maps (libcudacxx_maps) for a view without elements, whose strides reach no
/// element: row-major over the dimensions before the first extent of 0 (dimension order), then
/// the extents of 0, then the others by extent (the largest last: it multiplies no stride), each
/// stride the one before times that dimension's extent taken as at least 1. False where one
/// would pass the Index maximum (no mapping libcu++ takes may exist then).
template <std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE constexpr bool empty_view_strides(const Index (&ext)[Rank], Index (&str)[Rank]) noexcept {
  std::size_t order[Rank] = {};
  std::size_t n = 0, first_zero = Rank;
  for (std::size_t r = 0; r < Rank; ++r)
    if (ext[r] == 0 && first_zero == Rank) first_zero = r;
  for (std::size_t r = first_zero; r-- > 0;) order[n++] = r;
  for (std::size_t r = first_zero; r < Rank; ++r)
    if (ext[r] == 0) order[n++] = r;
  const std::size_t rest = n;
  for (std::size_t r = first_zero; r < Rank; ++r)
    if (ext[r] != 0) {
      std::size_t j = n++;
      for (; j > rest && ext[order[j - 1]] > ext[r]; --j) order[j] = order[j - 1];
      order[j] = r;
    }
  Index s = 1;
  for (std::size_t i = 0; i < Rank; ++i) {
    str[order[i]] = s;
    const Index e = ext[order[i]] < 1 ? Index{1} : ext[order[i]];
    if (i + 1 == Rank) break;
    if (s > max_of<Index> / e) return false;
    s = static_cast<Index>(s * e);
  }
  return true; // ordered by stride as laid out; the span before the first 0 is the zero's stride - 1
}

/// The stride of a row-major shape's dimension r, computed from the next one's. Checks off: the
/// product of the extents, wrapping (the arithmetic of raw pointers). Checks on: PyTorch's rule,
/// the product of the extents taken as at least 1 (a {1, 4, 0, 5} view has strides {20, 5, 5, 1},
/// as `torch.empty(1, 4, 0, 5)`, so that its to_mdspan() meets layout_stride's preconditions),
/// saturated at the Index maximum (no element, so no offset to compute, where a product passes it).
/// The two differ only for views without elements.
template <class Index>
CUGUARD_HOST_DEVICE constexpr Index next_row_major_stride(Index stride, Index extent) noexcept {
#if CUGUARD_IMPL_CHECKS
  return saturating_mul(stride, extent < 1 ? Index{1} : extent);
#else
  return wrapping_mul(stride, extent);
#endif
}

/// True where `data + n * stride` (n and stride not negative) is a pointer that can be formed:
/// data not null, the offset at most the int64 maximum in bytes and the address not wrapping.
/// Checked builds move the data pointer of a slice or select only then: a view without elements
/// is not checked to reach only offsets a pointer can hold, and the end of a dimension
/// (`slice(0, 4, 4)` of extent 4, stride 2^61) need not be one either.
template <class T>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool can_offset(const T* data, std::uint64_t n, std::uint64_t stride) noexcept {
  constexpr std::uint64_t max = static_cast<std::uint64_t>(max_of<std::int64_t>) / sizeof(T);
  if (data == nullptr) return false;
#if CUGUARD_IMPL_DEVICE_PASS
  const std::uint64_t elements = n * stride;
  const bool overflow = __umul64hi(n, stride) != 0;
#else
  std::uint64_t elements = 0;
  const bool overflow = __builtin_mul_overflow(n, stride, &elements);
#endif
  return !overflow && elements <= max &&
         elements * sizeof(T) <= ~std::uintptr_t{0} - reinterpret_cast<std::uintptr_t>(data);
}

/// The row-major stride of dimension From - 1: the product of extents From..Rank-1.
template <class Index, std::size_t From, std::size_t Rank, class E>
CUGUARD_HOST_DEVICE constexpr Index row_major_stride(const E (&extents)[Rank]) noexcept {
  if constexpr (From >= Rank) {
    return 1;
  } else {
    return next_row_major_stride(row_major_stride<Index, From + 1>(extents), static_cast<Index>(extents[From].value));
  }
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
