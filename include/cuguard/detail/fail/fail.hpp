// SPDX-License-Identifier: Apache-2.0
// The cold side of every check: fills a violation record and hands it to the host or device
// policy (the device's: detail/fail/device_report.hpp; the fields of a view: view_fields.hpp).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/device_report.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/fail/view_fields.hpp>
#include <cuguard/detail/platform/device.hpp>
#include <cuguard/detail/index/index_args.hpp>
#include <cuguard/detail/record/facts.hpp>
#include <cuguard/detail/record/completion.hpp>
#include <cuguard/detail/record/fields.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/violation.hpp>
#if CUGUARD_IMPL_CHECKS
#  include <cuguard/violation_error.hpp>
#endif

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

#if CUGUARD_IMPL_DEVICE_CONTINUE
/// Storage that a recorded-and-continued access is redirected to.
template <class T>
CUGUARD_HOST_DEVICE T& scratch() noexcept {
  using bare = std::remove_cv_t<T>;
  struct alignas(alignof(bare) > alignof(double) ? alignof(bare) : alignof(double)) storage {
    unsigned char bytes[sizeof(bare)];
  };
#  if CUGUARD_IMPL_EMULATION
  static thread_local storage s; // aligned like T (blocks of a grid may run on several OS threads)
#  else
  static storage s; // aligned like T: a redirected float4 access is a 16-byte access
#  endif
  return *reinterpret_cast<T*>(s.bytes);
}
#endif

/// The allocation behind a use_after_free record, from the token it recorded (slot, generation).
/// A pointer access's allocation likewise, where its bounds are a tracked allocation's, or the
/// memory that holds the first byte of its bounds (`data`), where the runtime knows it untracked;
/// and the tensor the bounds are, where host code took the pointer from one (element: its size).
inline void describe_record_allocation(violation& v, std::uint64_t data, std::size_t element) {
  if (v.op == operation::pointer_access && data != 0 && v.tensor[0] == '\0')
    describe_tensor(static_cast<std::uintptr_t>(data), element, v);
  if (v.alloc_label[0] != '\0') return;
  const lifetime_token t{v.slot, v.generation};
  if (v.kind == violation_kind::use_after_free) {
    if (!describe_allocation(t, v)) copy_text(v.alloc_label, "(slot reused since)");
  } else if (v.op == operation::pointer_access && t.slot != 0) {
    (void)describe_allocation(t, v);
  } else if (v.op == operation::pointer_access && data != 0) {
    (void)describe_memory(static_cast<std::uintptr_t>(data), v);
  }
}

/// Host policy for a violation found in host code: fill the record, then throw or abort.
#if !CUGUARD_IMPL_CHECKS
// Declared only: unchecked code never reports (every call of it sits in a discarded branch), so
// an unchecked translation unit need not parse the report's text and exception.
template <class Fill>
[[noreturn]] void report_host(const Fill& fill, const cuda::std::source_location& where);
#else
/// `fill(r)` writes the numbers of the violation into the record `r` (a detail::record).
template <class Fill>
[[noreturn]] void report_host(const Fill& fill, const cuda::std::source_location& where) {
  record r{};
  violation& v = r.v;
  pending& p = r.p;
  v.dim = -1;
  fill(r);
  p.file = address_of(where.file_name());
  p.function = address_of(where.function_name());
  v.line = static_cast<unsigned>(where.line());
  finish_here(v, p);
  describe_record_allocation(v, p.data, p.element_bytes);
  v.count = 1;
  raise_host(v);
}
#endif


/// Hands a violation to the policy of the code it was found in. `fields(r, k)` gives field k of
/// the `count` fields of the violation (the numbers of the violation, and what is still to
/// complete the record from); the source position, thread and launch (`launch`: the number the
/// view carries, if any) are added here.
/// In device code (and emulated kernels) the record goes to the report channel and the thread
/// stops, traps, or (CUGUARD_ON_DEVICE_VIOLATION_CONTINUE) the function returns. In host code
/// `host()` reports it (throws or aborts; the host_fail functions below): host code does not
/// write the record field by field, so that it compiles no copy of that loop per check.
template <class Fields, class Host>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void report(
    const Fields& fields, int count, const cuda::std::source_location& where, std::uint64_t launch, const Host& host) {
#if CUGUARD_IMPL_DEVICE_PASS
  (void)host;
  device_report(fields, count, where, launch);
#else
#  if CUGUARD_IMPL_EMULATION
  if (platform::in_kernel()) {
    device_report(fields, count, where, launch);
#    if CUGUARD_IMPL_DEVICE_CONTINUE
    return;
#    endif
  }
#  endif
  (void)fields, (void)count, (void)where, (void)launch;
  host();
  __builtin_unreachable(); // host() throws or aborts
#endif
}

/// The same, for a violation whose record host code may write field by field (no view: few
/// fields, one copy per translation unit).
template <class Fields>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void report(
    const Fields& fields, int count, const cuda::std::source_location& where) {
  report(fields, count, where, 0, [&] { report_host([&](record& r) { write_fields(r, fields, count); }, where); });
}

// The host side of fail_access, fail_finite and fail_view: one function each for every view
// type (defined with checks on; unchecked code never reports).

/// A failed element access in host code: `idx` holds its `indices` indices; `origins[i]` the
/// origin of index i where bit i of `with_origin` is set.
[[noreturn]] inline void host_fail_access(const view_facts& view, operation op, int width, std::uint64_t data,
                                          lifetime_token token, const std::int64_t* idx, int indices,
                                          const origin_info* origins, unsigned with_origin,
                                          const cuda::std::source_location& where);
/// A non-finite value found by expect_finite in host code.
[[noreturn]] inline void host_fail_finite(const view_facts& view, std::int64_t bits, const std::int64_t* idx,
                                          int indices, const cuda::std::source_location& where);
/// A failed view operation in host code.
[[noreturn]] inline void host_fail_view(const view_facts& view, violation_kind kind, operation op, int dim, numbers n,
                                        const dims& expected, const cuda::std::source_location& where);

#if CUGUARD_IMPL_CHECKS
[[noreturn]] inline void host_fail_access(const view_facts& view, operation op, int width, std::uint64_t data,
                                          lifetime_token token, const std::int64_t* idx, int indices,
                                          const origin_info* origins, unsigned with_origin,
                                          const cuda::std::source_location& where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        r.v.op = op;
        r.v.width = width;
        r.p.access = true;
        r.p.data = data;
        r.p.token = token;
        for (int i = 0; i < indices; ++i) {
          r.v.index[i] = idx[i];
          if ((with_origin >> i) & 1u) r.p.origins[i] = origins[i];
        }
      },
      where);
}

[[noreturn]] inline void host_fail_finite(const view_facts& view, std::int64_t bits, const std::int64_t* idx,
                                          int indices, const cuda::std::source_location& where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        r.v.kind = violation_kind::non_finite;
        r.v.op = operation::expect_finite;
        r.v.value = bits;
        for (int i = 0; i < indices; ++i) r.v.index[i] = idx[i];
      },
      where);
}

[[noreturn]] inline void host_fail_view(const view_facts& view, violation_kind kind, operation op, int dim, numbers n,
                                        const dims& expected, const cuda::std::source_location& where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        r.v.kind = kind;
        r.v.op = op;
        r.v.dim = dim;
        r.v.value = n.value;
        r.v.value_end = n.value_end;
        r.v.limit = n.limit;
        r.v.figure = n.figure;
        r.v.expected_rank = expected.n;
        for (int i = 0; i < expected.n && i < violation::max_rank; ++i) r.v.expected[i] = expected.v[i];
      },
      where);
}
#endif

/// Index i of the indices of an access, as a run-time i (see nth).
template <class First, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write put_index(const record& r, int i, const First& i0,
                                                                   const Rest&... rest) {
  const std::int64_t values[] = {i0.value, index_value(rest)...};
  return put_nth<1 + sizeof...(Rest)>(r, r.v.index, i, [&](auto n) { return values[n]; });
}

/// Indices that carry an origin (checked_index), and the fields of one origin in a record.
template <class I>
inline constexpr bool carries_origin = std::is_same<I, first_checked_index>::value || is_checked_index<I>::value;
struct origin_fields {
  enum : int { kind, rank, label_text, label_on_host, position, count = position + violation::max_rank };
};
inline constexpr int origin_field_count = origin_fields::count;

/// Field k of the origins of the indices `i, more...` (the first at position `at`): only those of
/// indices that carry one.
template <class I, class... More>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write origin_field(const record& r, int at, int k, const I& i,
                                                                      const More&... more) {
  if constexpr (carries_origin<I>) {
    if (k < origin_field_count) {
      const origin_info o = origin_of(i);
      const origin_info& dst = r.p.origins[at];
      switch (k) {
      case origin_fields::kind: return put(r, dst.kind, o.kind);
      case origin_fields::rank: return put(r, dst.rank, o.rank);
      case origin_fields::label_text: return put(r, dst.label.text, o.label.text);
      case origin_fields::label_on_host: return put(r, dst.label.on_host, o.label.on_host);
      default:
        return put_nth<violation::max_rank>(r, dst.position, k - origin_fields::position,
                                            [&](auto n) { return o.position[n]; });
      }
    }
    k -= origin_field_count;
  }
  if constexpr (sizeof...(More) > 0) {
    return origin_field(r, at + 1, k, more...);
  } else {
    return field_write{0, 0};
  }
}

/// The fields of an element access's record after the view's (fail_access), one each; then the
/// indices, then the origins of those that carry one.
struct access_fields {
  enum : int { op, width, access, data, token, indices };
};

/// The cold side of operator(), operator[], load and store: records the access; which check
/// failed is worked out from it when the record is completed (classify_access), so that device
/// code does not evaluate the check's parts again. `width` is 0 for a
/// scalar access and N for a vector access of N elements. Returns (the scratch element the
/// access is redirected to) only under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE.
template <class View, class First, class... Rest>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE typename View::element_type& fail_access(
    View view, operation op, int width, First i0, Rest... rest) {
  constexpr int indices = 1 + static_cast<int>(sizeof...(Rest));
  constexpr int origins = (static_cast<int>(carries_origin<First>) + ... + static_cast<int>(carries_origin<Rest>));
  report(
      view_then(view, [&](const record& r, int k) {
        switch (k) {
        case access_fields::op: return put(r, r.v.op, op);
        case access_fields::width: return put(r, r.v.width, width);
        case access_fields::access: return put(r, r.p.access, true);
        case access_fields::data: return put(r, r.p.data, address_of(view.data()));
        case access_fields::token: return put(r, r.p.token, view.token());
        default: break;
        }
        k -= access_fields::indices;
        if (k < indices) return put_index(r, k, i0, rest...);
        return origin_field(r, 0, k - indices, i0, rest...);
      }),
      view_field_count<View> + access_fields::indices + indices + origins * origin_field_count, i0.where, view.launch_number(),
      [&] {
        const std::int64_t idx[] = {i0.value, index_value(rest)...};
        origin_info from[static_cast<std::size_t>(indices)];
        unsigned with_origin = 0;
        int at = 0;
        const auto note = [&](const auto& i) {
          (void)i;
          if constexpr (carries_origin<std::decay_t<decltype(i)>>) {
            from[at] = origin_of(i);
            with_origin |= 1u << at;
          }
          ++at;
        };
        note(i0);
        (note(rest), ...);
        host_fail_access(facts_of(view), op, width, address_of(view.data()), view.token(), idx, indices, from,
                         with_origin, i0.where);
      });
#if CUGUARD_IMPL_DEVICE_CONTINUE
  return scratch<typename View::element_type>();
#endif
}

/// The fields of expect_finite's record after the view's (fail_finite); then the indices.
struct finite_fields {
  enum : int { kind_op, value, indices };
};

/// The cold side of expect_finite.
template <class View, class... Rest>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_finite(View view, double value,
                                                                                  first_index i0, Rest... rest) {
  static_assert(sizeof value == sizeof(std::int64_t), "double is 64 bits");
  std::int64_t bits;
#if CUGUARD_IMPL_DEVICE_PASS
  bits = __double_as_longlong(value);
#else
  std::memcpy(&bits, &value, sizeof value);
#endif
  constexpr int indices = 1 + static_cast<int>(sizeof...(Rest));
  report(
      view_then(view,
                [&](const record& r, int k) {
                  switch (k) {
                  case finite_fields::kind_op:
                    return put_bytes<2>(r, r.v.kind,
                                        static_cast<std::uint64_t>(violation_kind::non_finite) |
                                            static_cast<std::uint64_t>(operation::expect_finite) << 8);
                  case finite_fields::value: return put(r, r.v.value, bits);
                  default: return put_index(r, k - finite_fields::indices, i0, rest...);
                  }
                }),
      view_field_count<View> + finite_fields::indices + indices, i0.where, view.launch_number(), [&] {
        const std::int64_t idx[] = {i0.value, index_value(rest)...};
        host_fail_finite(facts_of(view), bits, idx, indices, i0.where);
      });
}

/// The fields of a view operation's record after the view's (fail_view); the expected shape's
/// extents last.
struct view_check_fields {
  enum : int { kind_op, dim, value, value_end, limit, figure, expected_rank, expected, count = expected + violation::max_rank };
};

/// The cold side of the checks of view operations (construction, slice, select, permute,
/// reshape, expect_contiguous, expect_shape).
template <class View>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_view(
    View view, violation_kind kind, operation op, int dim, numbers n, dims expected, cuda::std::source_location where) {
  report(
      view_then(view, [&](const record& r, int k) {
        switch (k) {
        case view_check_fields::kind_op:
          return put_bytes<2>(r, r.v.kind,
                              static_cast<std::uint64_t>(kind) | static_cast<std::uint64_t>(op) << 8);
        case view_check_fields::dim: return put(r, r.v.dim, dim);
        case view_check_fields::value: return put(r, r.v.value, n.value);
        case view_check_fields::value_end: return put(r, r.v.value_end, n.value_end);
        case view_check_fields::limit: return put(r, r.v.limit, n.limit);
        case view_check_fields::figure: return put(r, r.v.figure, n.figure);
        case view_check_fields::expected_rank: return put(r, r.v.expected_rank, expected.n);
        default:
          return put_nth<violation::max_rank>(r, r.v.expected, k - view_check_fields::expected,
                                              [&](auto i) { return static_cast<int>(i) < expected.n ? expected.v[i] : 0; });
        }
      }),
      view_field_count<View> + view_check_fields::count, where, view.launch_number(),
      [&] { host_fail_view(facts_of(view), kind, op, dim, n, expected, where); });
}

/// Construction over a tracked allocation that the view does not fit in (host only).
template <class View>
CUGUARD_IMPL_NOINLINE void fail_allocation(View view, const allocation_span& found, std::int64_t first_byte,
                                           std::int64_t bytes, cuda::std::source_location where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        violation& v = r.v;
        v.op = operation::make_view;
        if (!describe_allocation(found.token, v)) v.alloc_bytes = static_cast<std::int64_t>(found.bytes);
        v.kind = violation_kind::out_of_bounds;
        v.address = first_byte;
        v.bytes = bytes;
      },
      where);
}

#if CUGUARD_IMPL_CHECKS
/// The fields of bounded()'s record (fail_bounded).
struct bounded_fields {
  enum : int { kind, op, dim, device, value, limit, value_unsigned, limit_unsigned, count };
};

/// The cold side of bounded() (a template, as every cold path is, so that a translation unit
/// that never instantiates a check never instantiates the device state).
template <class Int>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_bounded(
    Int value, Int bound, bool value_unsigned, bool bound_unsigned, cuda::std::source_location where) {
  report(
      [&](const record& r, int k) {
        switch (k) {
        case bounded_fields::kind: return put(r, r.v.kind, violation_kind::out_of_bounds);
        case bounded_fields::op: return put(r, r.v.op, operation::bounded);
        case bounded_fields::dim: return put(r, r.v.dim, -1);
        case bounded_fields::device: return put(r, r.v.device, -1);
        case bounded_fields::value: return put(r, r.v.value, value);
        case bounded_fields::limit: return put(r, r.v.limit, bound);
        case bounded_fields::value_unsigned: return put(r, r.v.value_unsigned, value_unsigned);
        default: return put(r, r.v.limit_unsigned, bound_unsigned);
        }
      },
      bounded_fields::count, where);
}
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
