// SPDX-License-Identifier: Apache-2.0
// The fields a record has of a view: what the cold side of a check writes of the view it failed
// on (label, flags, type, rank, memory space and device, shape and strides), field by field in
// device code (view_field, view_then) and by value in host code (view_facts, fill_view).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/fields.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// A short list of integers passed by value to a cold function (by value: taking the address
/// of a local array would push it to local memory on the device).
struct dims {
  std::int64_t v[violation::max_rank];
  int n;
};

/// The numbers of a failed view operation, by the names of violation's fields (value,
/// value_end, limit, figure), passed by value.
struct numbers {
  std::int64_t value;
  std::int64_t value_end;
  std::int64_t limit;
  shape_figure figure;
};

/// The element type's name as reports write it ("const float").
template <class T>
CUGUARD_HOST_DEVICE inline void fill_type(char (&dst)[32]) noexcept {
  copy_type(dst, std::is_const<T>::value, type_name<std::remove_cv_t<T>>::value);
}

/// The fields of a view in a record, in the order view_field writes them: label, flags and
/// element size (view_flags), type, rank (and dim), memory space and device, then the extents and
/// the strides, one field each.
struct view_fields {
  enum : int { label, flags, type, rank_dim, space_device, extents };
};
/// How many fields view_field writes for `View`.
template <class View>
inline constexpr int view_field_count = view_fields::extents + 2 * static_cast<int>(View::rank());

static_assert(offsetof(violation, rank) % 8 == 0 && offsetof(violation, dim) == offsetof(violation, rank) + 4,
              "violation: rank and dim are two numbers in a row, 8-byte aligned (one step writes both)");
static_assert(offsetof(violation, kind) % 2 == 0 && offsetof(violation, op) == offsetof(violation, kind) + 1 &&
                  sizeof(violation_kind) == 1 && sizeof(operation) == 1,
              "violation: kind and op are two bytes in a row, 2-byte aligned (one step writes both)");
static_assert(offsetof(violation, space) % 8 == 0 && offsetof(violation, device) == offsetof(violation, space) + 4 &&
                  sizeof(memory_space) == 1,
              "violation: space, then device 4 bytes on, 8-byte aligned (one step writes both)");
static_assert(offsetof(pending, label_on_host) % 8 == 0 &&
                  offsetof(pending, origin_label_on_host) == offsetof(pending, label_on_host) + 1 &&
                  offsetof(pending, type_const) == offsetof(pending, label_on_host) + 2 &&
                  offsetof(pending, access) == offsetof(pending, label_on_host) + 3 &&
                  offsetof(pending, element_bytes) == offsetof(pending, label_on_host) + 4 &&
                  sizeof(pending::element_bytes) == 4,
              "pending: the four flags and element_bytes are 8 bytes in a row, 8-byte aligned (one step writes them)");

/// The 8 bytes of a record from pending::label_on_host on: the flags of a view and its element
/// size. `access` and `origin_label_on_host` are written false: fail_access sets `access` with a
/// field of its own, written after the view's fields (view_then puts them first), and
/// classify_access sets `origin_label_on_host` when it completes the record.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE std::uint64_t view_flags(bool label_on_host, bool type_const,
                                                                      std::uint32_t element_bytes) noexcept {
  return static_cast<std::uint64_t>(label_on_host) | static_cast<std::uint64_t>(type_const) << 16 |
         static_cast<std::uint64_t>(element_bytes) << 32;
}

/// Field k of the fields of `view`.
template <class View>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write view_field(const record& r, const View& view, int k) {
  using element = typename View::element_type;
  constexpr std::size_t rank = View::rank();
  switch (k) {
  case view_fields::label: return put(r, r.p.label, address_of(view.label_ref().text));
  case view_fields::flags:
    return put_bytes<8>(r, r.p.label_on_host, view_flags(view.label_ref().on_host, std::is_const<element>::value,
                                                         static_cast<std::uint32_t>(sizeof(element))));
  case view_fields::type: return put(r, r.p.type, address_of(type_name<std::remove_cv_t<element>>::value));
  case view_fields::rank_dim:
    return put_pair(r, r.v.rank, static_cast<unsigned>(rank), static_cast<unsigned>(-1)); // dim -1: none yet
  case view_fields::space_device:
    return put_bytes<8>(r, r.v.space,
                        static_cast<std::uint64_t>(view.space()) |
                            static_cast<std::uint64_t>(static_cast<std::uint32_t>(view.device())) << 32);
  default: break;
  }
  k -= view_fields::extents;
  if (k < static_cast<int>(rank)) return put_nth<rank>(r, r.v.extent, k, [&](auto i) { return view.extent(i); });
  return put_nth<rank>(r, r.v.stride, k - static_cast<int>(rank), [&](auto i) { return view.stride(i); });
}

/// The fields of a record about `view`: those of the view, then `own(r, k)`, field k of the
/// record's own (for use within the expression that writes the record: it refers to both).
template <class View, class Own>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto view_then(const View& view, const Own& own) {
  return [&view, &own](const record& r, int k) {
    return k < view_field_count<View> ? view_field(r, view, k) : own(r, k - view_field_count<View>);
  };
}

/// What a record says of a view (view_field's fields), gathered by value: host code writes it
/// with one function for every view type. Host code is compiled at nvcc's default -O0, where
/// each view type's own copy of the record writing would be compiled in every translation unit.
struct view_facts {
  label_ref label;
  const char* type;
  bool type_const;
  unsigned element_bytes;
  int rank;
  memory_space space;
  int device;
  std::int64_t extent[violation::max_rank];
  std::int64_t stride[violation::max_rank];
};

/// The facts of `view` (host code).
template <class View>
view_facts facts_of(const View& view) {
  using element = typename View::element_type;
  view_facts f{view.label_ref(),
               type_name<std::remove_cv_t<element>>::value,
               std::is_const<element>::value,
               static_cast<unsigned>(sizeof(element)),
               static_cast<int>(View::rank()),
               view.space(),
               view.device(),
               {},
               {}};
  for (std::size_t i = 0; i < View::rank(); ++i) {
    f.extent[i] = static_cast<std::int64_t>(view.extent(i));
    f.stride[i] = static_cast<std::int64_t>(view.stride(i));
  }
  return f;
}

/// Writes the facts of a view into `r`, as view_field does field by field (host code).
inline void fill_view(record& r, const view_facts& f) noexcept {
  r.p.label = address_of(f.label.text);
  r.p.label_on_host = f.label.on_host;
  r.p.type = address_of(f.type);
  r.p.type_const = f.type_const;
  r.p.element_bytes = f.element_bytes;
  r.v.rank = f.rank;
  r.v.dim = -1;
  r.v.space = f.space;
  r.v.device = f.device;
  for (int i = 0; i < f.rank; ++i) {
    r.v.extent[i] = f.extent[i];
    r.v.stride[i] = f.stride[i];
  }
}

/// Writes the fields of `view` into `r` (host code).
template <class View>
void fill_view(record& r, const View& view) {
  fill_view(r, facts_of(view));
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
