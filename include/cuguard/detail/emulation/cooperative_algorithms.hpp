// SPDX-License-Identifier: Apache-2.0
// Cooperative groups' collectives under emulation (<cooperative_groups/reduce.h>, scan.h,
// memcpy_async.h): the operators (cg::plus, less, greater, bit_and, bit_or, bit_xor),
// cg::reduce, cg::inclusive_scan and cg::exclusive_scan over a tile or a coalesced group (every
// lane's value gathered, folded in rank order), memcpy_async / wait / wait_prior (the group's
// threads copy their parts at once; the wait is the group's barrier, so a read before it is a
// race the race detector can see), and invoke_one.
#pragma once
// Part of <cuguard/detail/emulation/cooperative_groups.hpp>, which includes it at its end.


#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {
/// Folds with `op`, in rank order, the values of the threads of `group` of rank up to `last`
/// (-1: none) that have not exited; where none was folded the result is `R{}`. A tile of several
/// warps gathers across them (grid_runner::tile_gather), any other group across its warp's lanes.
template <class R, class Group, class T, class Op>
R fold(const Group& group, const T& value, Op& op, long long last, const char* name, CUGUARD_IMPL_CG_CALLER) {
  R out{};
  bool first = true;
  const auto take = [&](long long rank, std::uint64_t word) {
    if (rank > last) return;
    const T& v = *reinterpret_cast<const T*>(static_cast<std::uintptr_t>(word));
    out = first ? static_cast<R>(v) : static_cast<R>(op(out, v));
    first = false;
  };
  const std::uint64_t mine = reinterpret_cast<std::uintptr_t>(&value);
  if (group._cuguard_span() != 0) {
    engine::runner().tile_gather(mine, group._cuguard_span(), {CUGUARD_IMPL_CG_SITE},
                                 [&](unsigned k, std::uint64_t word) { take(k, word); });
    return out;
  }
  const unsigned mask = group._cuguard_lanes();
  engine::runner().gather(mine, engine::warp_call{mask, {CUGUARD_IMPL_CG_SITE}, name},
                          [&](unsigned live, const std::uint64_t* words) {
                            long long rank = 0;
                            for (unsigned l = 0; l < 32; ++l) {
                              if ((mask >> l & 1u) == 0) continue;
                              if (live >> l & 1u) take(rank, words[l]);
                              ++rank;
                            }
                          });
  return out;
}
template <class T>
using plain = std::remove_cv_t<std::remove_reference_t<T>>;
} // namespace details

/// The reduction of every lane's `value` of `group` with `op`, returned to each.
template <class Group, class T, class Op>
auto reduce(const Group& group, T&& value, Op&& op, CUGUARD_IMPL_CG_CALLER) -> decltype(op(value, value)) {
  const details::plain<T> mine = value;
  return details::fold<details::plain<decltype(op(value, value))>>(group, mine, op, 1ll << 40,
                                                                   "cooperative_groups::reduce", CUGUARD_IMPL_CG_SITE);
}
/// `op` of the values of the lanes of rank up to the caller's (inclusive) or below it (exclusive:
/// rank 0 gets a value-initialized result, as CUDA's).
template <class Group, class T, class Op>
auto inclusive_scan(const Group& group, T&& value, Op&& op, CUGUARD_IMPL_CG_CALLER) -> decltype(op(value, value)) {
  const details::plain<T> mine = value;
  return details::fold<details::plain<decltype(op(value, value))>>(
      group, mine, op, static_cast<long long>(group.thread_rank()), "cooperative_groups::inclusive_scan",
      CUGUARD_IMPL_CG_SITE);
}
template <class Group, class T>
details::plain<T> inclusive_scan(const Group& group, T&& value, CUGUARD_IMPL_CG_CALLER) {
  return inclusive_scan(group, std::forward<T>(value), plus<details::plain<T>>(), CUGUARD_IMPL_CG_SITE);
}
template <class Group, class T, class Op>
auto exclusive_scan(const Group& group, T&& value, Op&& op, CUGUARD_IMPL_CG_CALLER) -> decltype(op(value, value)) {
  const details::plain<T> mine = value;
  return details::fold<details::plain<decltype(op(value, value))>>(
      group, mine, op, static_cast<long long>(group.thread_rank()) - 1, "cooperative_groups::exclusive_scan",
      CUGUARD_IMPL_CG_SITE);
}
template <class Group, class T>
details::plain<T> exclusive_scan(const Group& group, T&& value, CUGUARD_IMPL_CG_CALLER) {
  return exclusive_scan(group, std::forward<T>(value), plus<details::plain<T>>(), CUGUARD_IMPL_CG_SITE);
}

/// `fn(args...)` run by one thread of `group` (its rank 0).
template <class Group, class Fn, class... Args>
void invoke_one(const Group& group, Fn&& fn, Args&&... args) {
  if (group.thread_rank() == 0) std::forward<Fn>(fn)(std::forward<Args>(args)...);
}

namespace details {
/// The caller's part of a copy of `bytes` bytes by the threads of `group`: the 16-byte pieces of
/// rank r, r + size, ... (the last piece shorter).
template <class Group>
void copy_part(const Group& group, void* dst, const void* src, std::size_t bytes) {
  const std::size_t threads = static_cast<std::size_t>(group.num_threads());
  for (std::size_t at = static_cast<std::size_t>(group.thread_rank()) * 16; at < bytes; at += threads * 16)
    std::memcpy(static_cast<unsigned char*>(dst) + at, static_cast<const unsigned char*>(src) + at,
                bytes - at < 16 ? bytes - at : 16);
}
} // namespace details

/// Copies `bytes` bytes (a count, or cuda::aligned_size_t) from `src` to `dst` by the group's
/// threads; wait(group) is when every thread may read the copy.
template <class Group, class T, class Count>
void memcpy_async(const Group& group, T* dst, const T* src, const Count& bytes) {
  details::copy_part(group, dst, src, static_cast<std::size_t>(bytes));
}
/// The same, counted in elements: the smaller of the two counts.
template <class Group, class T, class DstCount, class SrcCount>
void memcpy_async(const Group& group, T* dst, const DstCount& dst_count, const T* src, const SrcCount& src_count) {
  const std::size_t n = static_cast<std::size_t>(dst_count) < static_cast<std::size_t>(src_count)
                            ? static_cast<std::size_t>(dst_count)
                            : static_cast<std::size_t>(src_count);
  details::copy_part(group, dst, src, n * sizeof(T));
}
template <class Group>
void wait(const Group& group, CUGUARD_IMPL_CG_CALLER) {
  group.sync(CUGUARD_IMPL_CG_SITE);
}
template <unsigned Stage, class Group>
void wait_prior(const Group& group, CUGUARD_IMPL_CG_CALLER) {
  group.sync(CUGUARD_IMPL_CG_SITE);
}

} // namespace cooperative_groups

#undef CUGUARD_IMPL_CG_SITE
#undef CUGUARD_IMPL_CG_CALLER
