// SPDX-License-Identifier: Apache-2.0
// The cold side of every check: fills a violation record and hands it to the host or device policy.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/channel.hpp>
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

/// True in code that runs as part of a kernel: the device pass of nvcc, or an emulated kernel.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool in_device_code() noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  return true;
#elif CUGUARD_IMPL_EMULATION
  return emulation::in_kernel();
#else
  return false;
#endif
}

/// A label and whether it lives in host memory (device code must not read it then).
struct label_ref {
  const char* text = nullptr;
  bool on_host = !CUGUARD_IMPL_DEVICE_PASS;
};

/// Copies a label into a record field, or records its host address when device code cannot read it.
template <int N>
CUGUARD_HOST_DEVICE void copy_label(char (&dst)[N], std::uint64_t& address, const label_ref& l) {
#if CUGUARD_IMPL_DEVICE_PASS
  if (l.on_host) {
    address = reinterpret_cast<std::uint64_t>(l.text);
    return;
  }
#endif
  (void)address;
  copy_text(dst, l.text);
}

/// Where a checked_index came from (see index_origin).
struct origin_info {
  index_origin kind = index_origin::none;
  int rank = 0;
  label_ref label{};
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

/// Host policy for a violation found in host code: fill the record, then throw or abort.
template <class Fill>
[[noreturn]] void report_host(const Fill& fill, const cuda::std::source_location& where) {
  violation v{};
  fill(v);
  copy_tail(v.file, where.file_name());
  copy_text(v.function, where.function_name());
  v.line = static_cast<unsigned>(where.line());
  v.count = 1;
  raise_host(v);
}

/// Hands a violation to the policy of the code it was found in. `fill` writes the fields of the
/// record that describe it; the source position, thread and launch are added here. In device
/// code (and emulated kernels) the record goes to the report channel and the function returns
/// (record and continue) or traps; in host code it throws or aborts.
template <class Fill>
CUGUARD_HOST_DEVICE void report(const Fill& fill, const cuda::std::source_location& where) {
#if CUGUARD_IMPL_DEVICE_PASS
  device_report(fill, where);
#else
#  if CUGUARD_IMPL_EMULATION
  if (emulation::in_kernel()) {
    device_report(fill, where);
    return;
  }
#  endif
  report_host(fill, where);
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
  copy_label(v.label, v.label_address, view.label_ref());
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

/// Lifetime fields for a view whose token went stale (the host table has the sites).
CUGUARD_HOST_DEVICE inline void fill_stale(violation& v, const lifetime_token& t) {
  v.kind = violation_kind::use_after_free;
#if !CUGUARD_IMPL_DEVICE_PASS
  if (!registry().describe_stale(t, v)) copy_text(v.alloc_label, "(slot reused since)");
#else
  // The host fills the allocation from the token when it reads the record.
  v.arg[1] = t.slot;
  v.arg[2] = t.generation;
#endif
}

/// Storage that a recorded-and-continued access is redirected to.
template <class T>
CUGUARD_HOST_DEVICE T& scratch() noexcept {
  using bare = cuda::std::remove_cv_t<T>;
  struct alignas(alignof(bare) > alignof(double) ? alignof(bare) : alignof(double)) storage {
    unsigned char bytes[sizeof(bare)];
  };
  static storage s; // aligned like T: a redirected float4 access is a 16-byte access
  return *reinterpret_cast<T*>(s.bytes);
}

/// The cold side of operator(), operator[], load and store: works out which check failed.
/// `width` is 0 for a scalar access and N for a vector access of N elements.
template <class View, class First, class... Rest>
CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE typename View::element_type& fail_access(
    View view, operation op, int width, First i0, Rest... rest) {
  report(
      [&](violation& v) {
        fill_view(v, view);
        v.op = op;
        v.arg[0] = width;
        const std::int64_t idx[] = {i0.value, index_value(rest)...};
        const origin_info origins[] = {origin_of(i0), origin_of(rest)...};
        constexpr int rank = static_cast<int>(View::rank());
        for (int r = 0; r < rank; ++r) v.index[r] = idx[r];

        if (!view.space_ok()) {
          v.kind = violation_kind::wrong_memory_space;
          return;
        }
        if (!alive(view.token())) {
          fill_stale(v, view.token());
          return;
        }
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
          copy_label(v.origin_label, v.origin_label_address, o.label);
          for (int r = 0; r < violation::max_rank; ++r) v.origin_index[r] = o.position[r];
        }
      },
      i0.where);
  return scratch<typename View::element_type>();
}

/// The cold side of expect_finite.
template <class View, class... Rest>
CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE void fail_finite(View view, double value, first_index i0, Rest... rest) {
  report(
      [&](violation& v) {
        fill_view(v, view);
        v.kind = violation_kind::non_finite;
        v.op = operation::expect_finite;
        const std::int64_t idx[] = {i0.value, index_value(rest)...};
        for (int r = 0; r < v.rank; ++r) v.index[r] = idx[r];
        static_assert(sizeof value == sizeof v.arg[0], "double is 64 bits");
        const auto* bits = reinterpret_cast<const unsigned char*>(&value);
        auto* dst = reinterpret_cast<unsigned char*>(&v.arg[0]);
        for (unsigned b = 0; b < sizeof value; ++b) dst[b] = bits[b];
      },
      i0.where);
}

/// The cold side of the checks of view operations (construction, slice, select, permute,
/// reshape, expect_contiguous, expect_shape).
template <class View>
CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE void fail_view(View view, violation_kind kind, operation op, int dim, args a,
                                                         dims expected, cuda::std::source_location where) {
  report(
      [&](violation& v) {
        fill_view(v, view);
        v.kind = kind;
        v.op = op;
        v.dim = dim;
        for (int i = 0; i < 3; ++i) v.arg[i] = a.v[i];
        v.expected_rank = expected.n;
        for (int r = 0; r < expected.n; ++r) v.expected[r] = expected.v[r];
      },
      where);
}

/// Construction over a tracked allocation that the view does not fit in (host only).
template <class View>
CUGUARD_IMPL_NOINLINE void fail_allocation(View view, const allocation_lookup& found, std::int64_t first_byte,
                                           std::int64_t bytes, cuda::std::source_location where) {
  report_host(
      [&](violation& v) {
        fill_view(v, view);
        v.op = operation::make_view;
        lifetime_registry::fill_allocation(v, found.info);
        v.kind = violation_kind::out_of_bounds;
        v.arg[1] = first_byte;
        v.arg[2] = bytes;
      },
      where);
}

#if CUGUARD_IMPL_CHECKS
CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE inline void fail_bounded(std::int64_t value, std::int64_t bound,
                                                                   cuda::std::source_location where) {
  report(
      [&](violation& v) {
        v.kind = violation_kind::out_of_bounds;
        v.op = operation::bounded;
        v.dim = -1;
        v.device = -1;
        v.arg[0] = value;
        v.arg[1] = bound;
      },
      where);
}
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
