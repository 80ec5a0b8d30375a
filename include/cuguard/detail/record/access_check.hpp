// SPDX-License-Identifier: Apache-2.0
// One element access, checked: the predicate evaluated at every access (in device code one
// accumulated condition, one unlikely branch; on the host one branch a part), and beside it
// classify_access, which works out on the host, from what the failed access recorded, which part
// of that predicate failed. The two must agree; tests/host/access_check.test.cpp holds a table
// that fails each part once.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// True if an access of one element at `idx` must be reported: the memory cannot be read where
/// the code runs, its allocation was released, or an index is outside its extent (negative
/// indices too: as unsigned they are huge).
template <std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool access_fails(bool space_ok, bool alive, const std::int64_t (&idx)[Rank],
                                                               const Index (&extents)[Rank]) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  bool bad = !space_ok;
  bad |= !alive;
  for (std::size_t r = 0; r < Rank; ++r)
    bad |= static_cast<std::uint64_t>(idx[r]) >= static_cast<std::uint64_t>(extents[r]);
  return bad;
#else
  // A CPU predicts branches well: one for each part, where the bits of each were combined.
  if (!space_ok || !alive) return true;
  for (std::size_t r = 0; r < Rank; ++r)
    if (static_cast<std::uint64_t>(idx[r]) >= static_cast<std::uint64_t>(extents[r])) return true;
  return false;
#endif
}

/// After a check that passed, where a failed one does not return: tells the optimizer each index
/// is inside its extent, so that later checks of the same index fold (the check itself merges
/// its compares, which hides them).
template <std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void assume_inside(const std::int64_t (&idx)[Rank],
                                                                const Index (&extents)[Rank]) noexcept {
#if CUGUARD_IMPL_DEVICE_PASS && !CUGUARD_IMPL_DEVICE_CONTINUE
  for (std::size_t r = 0; r < Rank; ++r)
    __builtin_assume(static_cast<std::uint64_t>(idx[r]) < static_cast<std::uint64_t>(extents[r]));
#else
  (void)idx, (void)extents;
#endif
}

/// True if an access of N consecutive elements of T at `idx`, at byte address `address`, must be
/// reported: as access_fails, with the innermost range [idx, idx + N) inside its extent, a unit
/// inner stride and the address aligned to the access's N * sizeof(T) bytes. The address is an
/// integer (computed with wrap-around), so that no pointer is formed before the check passes.
template <int N, class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool vector_access_fails(bool space_ok, bool alive,
                                                                      const std::int64_t (&idx)[Rank],
                                                                      const Index (&extents)[Rank],
                                                                      const Index (&strides)[Rank],
                                                                      std::uint64_t address) noexcept {
  bool bad = !space_ok;
  bad |= !alive;
  bad |= strides[Rank - 1] != 1;
  for (std::size_t r = 0; r + 1 < Rank; ++r)
    bad |= static_cast<std::uint64_t>(idx[r]) >= static_cast<std::uint64_t>(extents[r]);
  bad |= idx[Rank - 1] < 0 || idx[Rank - 1] > static_cast<std::int64_t>(extents[Rank - 1]) - N;
  bad |= address % (sizeof(T) * N) != 0;
  return bad;
}

/// True if memory of `space` cannot be touched where a record was made (device code, or host
/// code): the space part of the predicate above, as checked_view::space_ok evaluates it.
CUGUARD_HOST_DEVICE constexpr bool wrong_space(memory_space space, bool on_device) noexcept {
  return space == (on_device ? memory_space::host : memory_space::device); // one compare, no branch
}

/// A cuguard::ptr's failed access whose element address is not aligned for its type (the
/// largest power of two that divides its size, at most 16): recorded as misaligned (a ptr_cast
/// of a misaligned address has no element, so that every access through it fails).
CUGUARD_HOST_DEVICE inline bool pointer_misaligned(violation& v, const pending& p) noexcept {
  const std::uint64_t size = p.element_bytes;
  const std::uint64_t align = (size & (~size + 1)) < 16 ? (size & (~size + 1)) : 16;
  const std::uint64_t address = p.data + static_cast<std::uint64_t>(v.index[0]) * size;
  if (align == 0 || address % align == 0) return false;
  v.kind = violation_kind::misaligned;
  v.address = static_cast<std::int64_t>(address);
  v.bytes = static_cast<std::int64_t>(align);
  return true;
}

/// Works out kind, dim and index origin of a failed element access from what was recorded: the
/// memory space, then the first index out of its extent, then (vector access) contiguity and
/// alignment; a failed access that passes all of these failed its lifetime check. The record
/// holds no lifetime fact of its own (evaluating the check again would cost device code
/// registers), so an access that is out of bounds through a released allocation is reported as
/// out of bounds: what the record proves.
CUGUARD_HOST_DEVICE inline void classify_access(violation& v, pending& p) noexcept {
  if (!p.access) return;
  p.access = false;
  const int rank = v.rank;
  const std::int64_t width = v.width;
  // A subscript (operation::subscript) is a bounds check alone: its memory is not touched yet.
  if (v.op != operation::subscript && wrong_space(v.space, v.on_device)) {
    v.kind = violation_kind::wrong_memory_space;
    return;
  }
  if (v.op == operation::pointer_access && pointer_misaligned(v, p)) return;
  v.kind = violation_kind::out_of_bounds;
  for (int r = 0; r < rank; ++r) {
    // Compared without adding to the index, which may be as large as the int64 maximum.
    const std::int64_t elements = r == rank - 1 && width > 0 ? width : 1;
    if (v.index[r] < 0 || v.index[r] > v.extent[r] - elements) {
      v.dim = r;
      break;
    }
  }
  if (v.dim < 0 && width > 0) {
    if (v.stride[rank - 1] != 1) {
      v.kind = violation_kind::non_contiguous;
    } else {
      std::int64_t offset = 0;
      for (int r = 0; r < rank; ++r) offset += v.index[r] * v.stride[r];
      const std::uint64_t address = p.data + static_cast<std::uint64_t>(offset) * p.element_bytes;
      const std::uint64_t bytes = static_cast<std::uint64_t>(p.element_bytes) * static_cast<std::uint64_t>(width);
      if (address % bytes != 0) {
        v.kind = violation_kind::misaligned;
        v.address = static_cast<std::int64_t>(address);
        v.bytes = static_cast<std::int64_t>(bytes);
      }
    }
  }
  if (v.op == operation::pointer_access) { // the allocation a pointer's bounds are, named in its report
    v.slot = p.token.slot;
    v.generation = p.token.generation;
  }
  if (v.dim < 0 && v.kind == violation_kind::out_of_bounds) {
    // The host fills the allocation from the token (describe_record_allocation, through host_hooks).
    v.kind = violation_kind::use_after_free;
    v.slot = p.token.slot;
    v.generation = p.token.generation;
    return;
  }
  if (v.dim >= 0 && p.origins[v.dim].kind != index_origin::none) {
    const origin_info& o = p.origins[v.dim];
    v.origin = o.kind;
    v.origin_rank = o.rank;
    p.origin_label = address_of(o.label.text);
    p.origin_label_on_host = o.label.on_host;
    for (int r = 0; r < violation::max_rank; ++r) v.origin_index[r] = o.position[r];
  }
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
