// SPDX-License-Identifier: Apache-2.0
// The cold side of every check: fills a violation record and hands it to the host or device policy.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/lifetime.hpp>
#include <cuguard/report.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/source_location>
#include <cuda/std/type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

template <class T>
inline constexpr bool is_integer_v =
    cuda::std::is_integral<T>::value && !cuda::std::is_same<cuda::std::remove_cv_t<T>, bool>::value;

template <class T>
struct is_checked_index : cuda::std::false_type {};

/// An integer or a checked_index: what views accept as an index.
template <class T>
inline constexpr bool is_index_v = is_integer_v<T> || is_checked_index<T>::value;

/// Where a checked_index came from (see index_origin).
struct origin_info {
  index_origin kind = index_origin::none;
  int rank = 0;
  const char* label = nullptr;
  std::int64_t position[violation::max_rank] = {};
};

/// The first index of an access, when it is an integer. Its converting constructor takes the
/// caller's source location as a default argument: that is how a check reports the line of the
/// offending expression. Kept to scalars, so that compilers leave it in registers and build the
/// arguments of the cold call only on the cold path.
struct first_index {
  std::int64_t value;
  cuda::std::source_location where;

  template <class I, cuda::std::enable_if_t<is_integer_v<I>, int> = 0>
  CUGUARD_HOST_DEVICE constexpr first_index(
      I i, cuda::std::source_location w = cuda::std::source_location::current()) noexcept
      : value(static_cast<std::int64_t>(i)), where(w) {}
};

/// The first index of an access, when it is a checked_index: the value, its origin and the
/// caller's source location.
struct first_checked_index {
  std::int64_t value;
  origin_info origin;
  cuda::std::source_location where;

  template <class C, cuda::std::enable_if_t<is_checked_index<C>::value, int> = 0>
  CUGUARD_HOST_DEVICE constexpr first_checked_index(
      const C& i, cuda::std::source_location w = cuda::std::source_location::current()) noexcept
      : value(static_cast<std::int64_t>(i.value())), origin(i.origin()), where(w) {}
};

template <class I>
CUGUARD_HOST_DEVICE constexpr std::int64_t index_value(const I& i) noexcept {
  if constexpr (cuda::std::is_same<I, first_index>::value || cuda::std::is_same<I, first_checked_index>::value) {
    return i.value;
  } else if constexpr (is_checked_index<I>::value) {
    return static_cast<std::int64_t>(i.value());
  } else {
    return static_cast<std::int64_t>(i);
  }
}

template <class I>
CUGUARD_HOST_DEVICE constexpr origin_info origin_of(const I& i) noexcept {
  if constexpr (cuda::std::is_same<I, first_checked_index>::value) {
    return i.origin;
  } else if constexpr (is_checked_index<I>::value) {
    return i.origin();
  } else {
    return origin_info{};
  }
}

/// A short list of integers passed by value to a cold function (by value: taking the address
/// of a local array would push it to local memory on the device).
struct dims {
  std::int64_t v[violation::max_rank];
  int n;
};

/// Up to three numbers that detail a violation (violation::arg), passed by value.
struct args {
  std::int64_t v[3];
};

/// Stamps the source position and hands the record to the policy of the side it runs on.
CUGUARD_HOST_DEVICE inline void deliver(violation& v, const cuda::std::source_location& where) {
  copy_tail(v.file, where.file_name());
  copy_text(v.function, where.function_name());
  v.line = static_cast<unsigned>(where.line());
  v.count = 1;
#if CUGUARD_IMPL_DEVICE_PASS
  v.on_device = true;
  v.block[0] = blockIdx.x, v.block[1] = blockIdx.y, v.block[2] = blockIdx.z;
  v.thread[0] = threadIdx.x, v.thread[1] = threadIdx.y, v.thread[2] = threadIdx.z;
  printf("cuguard: violation (kind %d) at %s:%u in %s, dim %d, block (%u,%u,%u) thread (%u,%u,%u)\n",
         static_cast<int>(v.kind), v.file, v.line, v.function, v.dim, v.block[0], v.block[1], v.block[2],
         v.thread[0], v.thread[1], v.thread[2]);
  __trap();
#else
  raise_host(v);
#endif
}

template <class T>
CUGUARD_HOST_DEVICE inline void fill_type(char (&dst)[32]) noexcept {
  using bare = cuda::std::remove_cv_t<T>;
  const char* prefix = cuda::std::is_const<T>::value ? "const " : "";
  const char* name = type_name<bare>::value;
  int i = 0;
  for (; *prefix != '\0' && i < 31; ++prefix) dst[i++] = *prefix;
  for (; *name != '\0' && i < 31; ++name) dst[i++] = *name;
  dst[i] = '\0';
}

/// Label, type, shape, strides and memory space of `view`.
template <class View>
CUGUARD_HOST_DEVICE void fill_view(violation& v, const View& view) {
#if CUGUARD_IMPL_DEVICE_PASS
  // A label made in host code points to host memory, which device code must not read.
  copy_text(v.label, "");
#else
  copy_text(v.label, view.label());
#endif
  fill_type<typename View::element_type>(v.type);
  v.rank = static_cast<int>(View::rank());
  for (int r = 0; r < v.rank; ++r) {
    v.extent[r] = static_cast<std::int64_t>(view.extent(static_cast<std::size_t>(r)));
    v.stride[r] = static_cast<std::int64_t>(view.stride(static_cast<std::size_t>(r)));
  }
  v.space = view.space();
  v.device = view.device();
  v.dim = -1;
}

/// Lifetime fields for a view whose token went stale (host only: the table lives there).
CUGUARD_HOST_DEVICE inline void fill_stale(violation& v, const lifetime_token& t) {
  v.kind = violation_kind::use_after_free;
#if !CUGUARD_IMPL_DEVICE_PASS
  if (!registry().describe_stale(t, v)) copy_text(v.alloc_label, "(slot reused since)");
#else
  (void)t;
#endif
}

/// Storage that a recorded-and-continued access is redirected to.
template <class T>
CUGUARD_HOST_DEVICE T& scratch() noexcept {
  using bare = cuda::std::remove_cv_t<T>;
  union storage {
    unsigned char bytes[sizeof(bare)];
    double align;
  };
  static storage s;
  return *reinterpret_cast<T*>(s.bytes);
}

/// The cold side of operator(), operator[], load and store: works out which check failed.
/// `width` is 0 for a scalar access and N for a vector access of N elements.
template <class View, class First, class... Rest>
CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE typename View::element_type& fail_access(
    View view, operation op, int width, First i0, Rest... rest) {
  violation v{};
  fill_view(v, view);
  v.op = op;
  v.arg[0] = width;
  const std::int64_t idx[] = {i0.value, index_value(rest)...};
  const origin_info origins[] = {origin_of(i0), origin_of(rest)...};
  constexpr int rank = static_cast<int>(View::rank());
  for (int r = 0; r < rank; ++r) v.index[r] = idx[r];

  if (!alive(view.token())) {
    fill_stale(v, view.token());
  } else {
    v.kind = violation_kind::out_of_bounds;
    for (int r = 0; r < rank; ++r) {
      const std::int64_t last = r == rank - 1 && width > 0 ? idx[r] + width : idx[r] + 1;
      if (idx[r] < 0 || last > v.extent[r]) {
        v.dim = r;
        break;
      }
    }
    if (v.dim < 0 && width > 0) {
      if (v.stride[rank - 1] != 1) {
        v.kind = violation_kind::non_contiguous;
      } else {
        std::int64_t offset = 0;
        for (int r = 0; r < rank; ++r) offset += idx[r] * v.stride[r];
        const auto address = reinterpret_cast<std::uintptr_t>(view.data() + offset);
        v.kind = violation_kind::misaligned;
        v.arg[1] = static_cast<std::int64_t>(address);
        v.arg[2] = static_cast<std::int64_t>(sizeof(typename View::element_type)) * width;
      }
    }
    if (v.dim >= 0 && origins[v.dim].kind != index_origin::none) {
      const origin_info& o = origins[v.dim];
      v.origin = o.kind;
      v.origin_rank = o.rank;
#if !CUGUARD_IMPL_DEVICE_PASS
      copy_text(v.origin_label, o.label);
#endif
      for (int r = 0; r < violation::max_rank; ++r) v.origin_index[r] = o.position[r];
    }
  }
  deliver(v, i0.where);
  return scratch<typename View::element_type>();
}

/// The cold side of the checks of view operations (construction, slice, select, permute,
/// reshape, expect_contiguous, expect_shape).
template <class View>
CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE void fail_view(View view, violation_kind kind, operation op, int dim, args a,
                                                         dims expected, cuda::std::source_location where) {
  violation v{};
  fill_view(v, view);
  v.kind = kind;
  v.op = op;
  v.dim = dim;
  for (int i = 0; i < 3; ++i) v.arg[i] = a.v[i];
  v.expected_rank = expected.n;
  for (int r = 0; r < expected.n; ++r) v.expected[r] = expected.v[r];
  deliver(v, where);
}

/// Construction over a tracked allocation: out of its bounds, or after its release.
template <class View>
CUGUARD_IMPL_NOINLINE void fail_allocation(View view, const allocation_lookup& found, std::int64_t first_byte,
                                           std::int64_t bytes, cuda::std::source_location where) {
  violation v{};
  fill_view(v, view);
  v.op = operation::make_view;
  lifetime_registry::fill_allocation(v, found.info);
  if (found.found == allocation_lookup::state::released) {
    v.kind = violation_kind::use_after_free;
  } else {
    v.kind = violation_kind::out_of_bounds;
    v.arg[1] = first_byte;
    v.arg[2] = bytes;
  }
  deliver(v, where);
}

CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE inline void fail_bounded(std::int64_t value, std::int64_t bound,
                                                                   cuda::std::source_location where) {
  violation v{};
  v.kind = violation_kind::out_of_bounds;
  v.op = operation::bounded;
  v.dim = -1;
  v.device = -1;
  v.arg[0] = value;
  v.arg[1] = bound;
  deliver(v, where);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
