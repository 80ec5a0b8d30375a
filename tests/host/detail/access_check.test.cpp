// SPDX-License-Identifier: Apache-2.0
// The predicate of an element access (what device code evaluates) and classify_access (what the
// host works out from the record) must agree: a table in which each part of the predicate fails
// once, and the accesses next to them that pass; and where two parts fail, the one the record
// proves.
#include "support.hpp"

#include <cuguard/detail/record/access_check.hpp>
#include <doctest/doctest.h>

#include <cstdint>

namespace access_check_tests {

using cuguard::violation_kind;

struct row {
  const char* what;
  int width; // 0: one element; else a vector access of `width` elements
  bool space_ok;
  bool alive;
  std::int64_t index[2];
  std::int64_t stride[2];
  violation_kind kind; // none: the access passes
  int dim;             // the dimension the report names (-1: none)
};

// A float view of extents {4, 8} over a 64-byte aligned buffer.
const row table[] = {
    {"an element inside", 0, true, true, {1, 2}, {8, 1}, violation_kind::none, -1},
    {"memory of the other side", 0, false, true, {1, 2}, {8, 1}, violation_kind::wrong_memory_space, -1},
    {"a released allocation", 0, true, false, {1, 2}, {8, 1}, violation_kind::use_after_free, -1},
    {"a negative outer index", 0, true, true, {-1, 2}, {8, 1}, violation_kind::out_of_bounds, 0},
    {"an inner index at its extent", 0, true, true, {1, 8}, {8, 1}, violation_kind::out_of_bounds, 1},
    {"four elements inside", 4, true, true, {1, 4}, {8, 1}, violation_kind::none, -1},
    {"four elements from another side", 4, false, true, {1, 4}, {8, 1}, violation_kind::wrong_memory_space, -1},
    {"four elements of a released allocation", 4, true, false, {1, 4}, {8, 1}, violation_kind::use_after_free, -1},
    {"four elements in a row past the end", 4, true, true, {4, 0}, {8, 1}, violation_kind::out_of_bounds, 0},
    {"four elements running past the inner extent", 4, true, true, {1, 6}, {8, 1}, violation_kind::out_of_bounds, 1},
    {"four elements with inner stride 4", 4, true, true, {1, 1}, {1, 4}, violation_kind::non_contiguous, -1},
    {"four elements at a 8-byte boundary", 4, true, true, {1, 2}, {8, 1}, violation_kind::misaligned, -1},
    // Indices at the int64 edges name their own dimension (no overflow while classifying).
    {"the int64 maximum as inner index", 0, true, true, {1, INT64_MAX}, {8, 1}, violation_kind::out_of_bounds, 1},
    {"the int64 minimum as outer index", 0, true, true, {INT64_MIN, 2}, {8, 1}, violation_kind::out_of_bounds, 0},
    {"four elements from the int64 maximum", 4, true, true, {1, INT64_MAX}, {8, 1}, violation_kind::out_of_bounds, 1},
    // The record holds no lifetime fact: a released allocation is named where nothing else failed.
    {"an index past its extent in a released allocation", 0, true, false, {1, 8}, {8, 1}, violation_kind::out_of_bounds, 1},
    {"four misaligned elements of a released allocation", 4, true, false, {1, 2}, {8, 1}, violation_kind::misaligned, -1},
};

} // namespace access_check_tests

TEST_CASE("the access predicate and classify_access agree on every part of the check") {
  using namespace access_check_tests;
  alignas(64) static float buffer[64] = {};
  const std::int64_t extents[2] = {4, 8};
  for (const row& r : table) {
    CAPTURE(r.what);
    // The address is only compared (alignment), never dereferenced: computed as an integer.
    const std::uint64_t offset = static_cast<std::uint64_t>(r.index[0]) * static_cast<std::uint64_t>(r.stride[0]) +
                                 static_cast<std::uint64_t>(r.index[1]) * static_cast<std::uint64_t>(r.stride[1]);
    const std::uint64_t address = cuguard::detail::address_of(buffer) + offset * sizeof(float);
    const bool fails = r.width == 0
                           ? cuguard::detail::access_fails(r.space_ok, r.alive, r.index, extents)
                           : cuguard::detail::vector_access_fails<4, float>(r.space_ok, r.alive, r.index, extents, r.stride, address);
    CHECK(fails == (r.kind != violation_kind::none));
    if (!fails) continue;

    // The record a failed access leaves (fail_access), completed as the host completes it.
    cuguard::violation v{};
    v.on_device = true; // as device code records it: host memory is the other side
    v.space = r.space_ok ? cuguard::memory_space::device : cuguard::memory_space::host;
    v.rank = 2;
    v.dim = -1;
    v.width = r.width;
    for (int d = 0; d < 2; ++d) v.index[d] = r.index[d], v.extent[d] = extents[d], v.stride[d] = r.stride[d];
    cuguard::detail::pending pending{};
    pending.access = true;
    pending.element_bytes = sizeof(float);
    pending.data = cuguard::detail::address_of(buffer);
    pending.token = cuguard::lifetime_token{3, 7};
    cuguard::detail::classify_access(v, pending);
    CHECK(v.kind == r.kind);
    CHECK(v.dim == r.dim);
    if (r.kind == violation_kind::use_after_free) CHECK((v.slot == 3 && v.generation == 7));
    if (r.kind == violation_kind::misaligned) {
      CHECK(v.address == static_cast<std::int64_t>(address));
      CHECK(v.bytes == 16);
    }
    CHECK_FALSE(pending.access); // classified once
  }
}
