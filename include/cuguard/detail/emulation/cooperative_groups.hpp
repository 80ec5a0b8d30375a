// SPDX-License-Identifier: Apache-2.0
// CUDA's cooperative groups under emulation: the names of <cooperative_groups.h> (namespace
// cooperative_groups, which users call cg), made of the emulated warp-wide operations, so that
// kernels that use them build unchanged with a host compiler. The toolkit's header needs nvcc;
// this one takes its place: its include guards are defined here, so that an
// `#include <cooperative_groups.h>` (or reduce.h, scan.h, memcpy_async.h) after
// <cuguard/emulation.hpp> adds nothing.
//
// Each group's barrier and exchange is a __syncwarp or __syncthreads of its lanes, checked as
// those are (a lane that waits elsewhere, a mask naming a lane outside the tile, divergence);
// this_grid().sync() is the barrier of a cooperative launch (detail/emulation/grid_barrier.hpp).
// A tile of one warp works through its lanes' exchanges; a tile of several warps (64 to 1024 threads)
// through the runner's tile barrier and gather over its range of threads.
#pragma once

#include <cuguard/detail/emulation/grid_barrier.hpp>
#include <cuguard/detail/emulation/intrinsics.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#define _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_REDUCE_H
#define _COOPERATIVE_GROUPS_SCAN_H
#define _COOPERATIVE_GROUPS_MEMCPY_ASYNC

// The caller's position, for the reports of a barrier or an exchange (as the intrinsics take it).
#define CUGUARD_IMPL_CG_CALLER \
  const char *file = __builtin_FILE(), const char *function = __builtin_FUNCTION(), unsigned line = __builtin_LINE()
#define CUGUARD_IMPL_CG_SITE file, function, line

namespace cooperative_groups {
namespace details {
namespace engine = ::cuguard::detail::engine;
inline constexpr unsigned coalesced_group_id = 1, thread_block_id = 2, grid_group_id = 3;

/// The running thread's rank in its block, and the block's size.
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() % 32; }
/// The running thread's rank among the lanes of `mask` (its own lane in it).
inline unsigned rank_in(unsigned mask) { return static_cast<unsigned>(__builtin_popcount(mask & ((1u << lane()) - 1u))); }
/// The lane of rank `rank` among those of `mask` (rank < popcount(mask)).
inline unsigned lane_of_rank(unsigned mask, unsigned rank) {
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && rank-- == 0) return l;
  return lane();
}
/// The lanes of the tile of `size` threads (a power of 2, at most 32) that the running thread is in.
inline unsigned tile_mask(unsigned size) {
  const unsigned bits = size >= 32 ? ~0u : (1u << size) - 1u;
  return bits << (lane() / size * size);
}
inline void check_tile_size(unsigned long long size, const char* call) {
  if (size == 0 || size > 32 || (size & (size - 1)) != 0)
    throw std::invalid_argument(std::string("cuguard emulation: ") + call + "(group, " + std::to_string(size) +
                                "): a tile's size must be a power of 2 from 1 to 32");
}

/// `value` of lane `src` of the lanes `mask` names (its own where that lane does not take part),
/// in words of 8 bytes: any trivially copyable type, as cooperative groups' shfl takes.
template <class T>
T exchange(unsigned mask, const T& value, unsigned src, const char* name, CUGUARD_IMPL_CG_CALLER) {
  static_assert(std::is_trivially_copyable<T>::value, "cooperative groups: a shuffle moves trivially copyable values");
  unsigned char in[sizeof(T)], out[sizeof(T)];
  std::memcpy(in, static_cast<const void*>(&value), sizeof(T));
  for (std::size_t at = 0; at < sizeof(T); at += 8) {
    const std::size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
    std::uint64_t w = 0;
    std::memcpy(&w, in + at, n);
    w = engine::runner().exchange(w, src, engine::warp_call{mask, {CUGUARD_IMPL_CG_SITE}, name});
    std::memcpy(out + at, &w, n);
  }
  T result;
  std::memcpy(static_cast<void*>(&result), out, sizeof(T));
  return result;
}
/// The bits of `lanes` (a ballot) renumbered by rank among the lanes of `mask`.
inline unsigned by_rank(unsigned lanes, unsigned mask) {
  unsigned out = 0, rank = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) out |= (lanes >> l & 1u) << rank++;
  return out;
}

/// What the groups of lanes of one warp (tiles, coalesced groups) do alike, given their lanes.
struct lanes_ops {
  static void sync(unsigned mask, CUGUARD_IMPL_CG_CALLER) { ::__syncwarp(mask, CUGUARD_IMPL_CG_SITE); }
  template <class T>
  static T shfl(unsigned mask, const T& v, unsigned rank, CUGUARD_IMPL_CG_CALLER) {
    const unsigned n = static_cast<unsigned>(__builtin_popcount(mask));
    return exchange(mask, v, lane_of_rank(mask, rank % n), "shfl", CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  static T shfl_down(unsigned mask, const T& v, unsigned delta, CUGUARD_IMPL_CG_CALLER) {
    const unsigned n = static_cast<unsigned>(__builtin_popcount(mask)), r = rank_in(mask);
    return exchange(mask, v, r + delta < n ? lane_of_rank(mask, r + delta) : lane(), "shfl_down", CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  static T shfl_up(unsigned mask, const T& v, unsigned delta, CUGUARD_IMPL_CG_CALLER) {
    const unsigned r = rank_in(mask);
    return exchange(mask, v, r >= delta ? lane_of_rank(mask, r - delta) : lane(), "shfl_up", CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  static T shfl_xor(unsigned mask, const T& v, unsigned bits, CUGUARD_IMPL_CG_CALLER) {
    const unsigned n = static_cast<unsigned>(__builtin_popcount(mask)), r = rank_in(mask) ^ bits;
    return exchange(mask, v, r < n ? lane_of_rank(mask, r) : lane(), "shfl_xor", CUGUARD_IMPL_CG_SITE);
  }
  static unsigned ballot(unsigned mask, int p, CUGUARD_IMPL_CG_CALLER) {
    return by_rank(::__ballot_sync(mask, p, CUGUARD_IMPL_CG_SITE), mask);
  }
  /// The ranks whose `value` equals the caller's (match_any); `all`: every live lane's does.
  template <class T>
  static unsigned match(unsigned mask, T value, bool* all, CUGUARD_IMPL_CG_CALLER) {
    static_assert(std::is_integral<T>::value && sizeof(T) <= 8, "match_any / match_all take an integer");
    unsigned same = 0, live = 0;
    engine::runner().gather(static_cast<std::uint64_t>(value), engine::warp_call{mask, {CUGUARD_IMPL_CG_SITE}, "match"},
                            [&](unsigned lanes, const std::uint64_t* words) {
                              live = lanes;
                              for (unsigned l = 0; l < 32; ++l)
                                if ((lanes >> l & 1u) && static_cast<T>(words[l]) == value) same |= 1u << l;
                            });
    if (all != nullptr) *all = same == live;
    return by_rank(same, mask);
  }
};

} // namespace details

/// Any group, as its kind's barrier, size and ranks (what a thread_group variable holds).
class thread_group {
 public:
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }
  unsigned long long thread_rank() const {
    if (span_ != 0) return details::block_rank() % span_;
    if (type_ == details::grid_group_id)
      return (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * static_cast<unsigned long long>(blockIdx.z))) *
                 details::block_size() + details::block_rank();
    return type_ == details::thread_block_id ? details::block_rank() : details::rank_in(mask_);
  }
  inline void sync(CUGUARD_IMPL_CG_CALLER) const;
  unsigned int get_type() const { return type_; }
  /// The lanes of the caller's warp in the group (a tile or coalesced group; cuguard's).
  unsigned _cuguard_lanes() const { return mask_; }
  /// The size of a tile of several warps (0: the group is not one; cuguard's).
  unsigned _cuguard_span() const { return span_; }

 protected:
  thread_group(unsigned type, unsigned long long size, unsigned mask, unsigned span = 0)
      : type_(type), mask_(mask), span_(span), size_(size) {}
  unsigned type_;
  unsigned mask_;
  unsigned span_;
  unsigned long long size_;
};

/// The threads of the block (this_thread_block()).
class thread_block : public thread_group {
 public:
  thread_block() : thread_group(details::thread_block_id, details::block_size(), ~0u) {}
  static constexpr unsigned _group_id = details::thread_block_id;
  static void sync(CUGUARD_IMPL_CG_CALLER) { ::__syncthreads(CUGUARD_IMPL_CG_SITE); }
  static unsigned size() { return details::block_size(); }
  static unsigned num_threads() { return details::block_size(); }
  static unsigned thread_rank() { return details::block_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }
/// The scratch a GPU's tiles of several warps keep in shared memory (none is needed here).
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {};
template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return thread_block();
}

/// Every thread of a cooperative launch (cudaLaunchCooperativeKernel): this_grid().
class grid_group : public thread_group {
 public:
  grid_group() : thread_group(details::grid_group_id, num_threads(), ~0u) {}
  static constexpr unsigned _group_id = details::grid_group_id;
  static bool is_valid() { return ::cuguard::detail::engine::cooperative_grid().active(); }
  /// The grid's barrier: the block's threads meet, its first thread to go on waits for every
  /// other block (their OS threads), then the block's threads meet again.
  static void sync(CUGUARD_IMPL_CG_CALLER) {
    if (!is_valid()) {
      // Undefined on a GPU (it hangs, or fails the launch): the grid stops, as at __trap().
      std::fprintf(stderr,
                   "cuguard: this_grid().sync() at %s:%u in a kernel not launched by cudaLaunchCooperativeKernel: a GPU "
                   "does not hold the grid's blocks at once (the grid stops, as at __trap())\n",
                   file, line);
      ::__trap();
    }
    static thread_local bool waited = false; // one OS thread runs the block: shared by its threads
    ::__syncthreads(CUGUARD_IMPL_CG_SITE);
    if (!waited) {
      waited = true;
      ::cuguard::detail::engine::cooperative_grid().arrive_and_wait();
    }
    ::__syncthreads(CUGUARD_IMPL_CG_SITE);
    waited = false;
  }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long num_threads() { return num_blocks() * details::block_size(); }
  static unsigned long long thread_rank() { return block_rank() * details::block_size() + details::block_rank(); }
  static unsigned long long num_blocks() { return 1ull * gridDim.x * gridDim.y * gridDim.z; }
  static unsigned long long block_rank() { return blockIdx.x + gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 group_dim() { return gridDim; }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
};
inline grid_group this_grid() { return grid_group(); }

#define CUGUARD_IMPL_CG_LANE_OPS                                                                                  \
  void sync(CUGUARD_IMPL_CG_CALLER) const { details::lanes_ops::sync(mask_, CUGUARD_IMPL_CG_SITE); }               \
  template <class T>                                                                                              \
  T shfl(T v, unsigned src, CUGUARD_IMPL_CG_CALLER) const {                                                       \
    return details::lanes_ops::shfl(mask_, v, src, CUGUARD_IMPL_CG_SITE);                                         \
  }                                                                                                               \
  template <class T>                                                                                              \
  T shfl_down(T v, unsigned delta, CUGUARD_IMPL_CG_CALLER) const {                                                \
    return details::lanes_ops::shfl_down(mask_, v, delta, CUGUARD_IMPL_CG_SITE);                                  \
  }                                                                                                               \
  template <class T>                                                                                              \
  T shfl_up(T v, unsigned delta, CUGUARD_IMPL_CG_CALLER) const {                                                  \
    return details::lanes_ops::shfl_up(mask_, v, delta, CUGUARD_IMPL_CG_SITE);                                    \
  }                                                                                                               \
  int any(int p, CUGUARD_IMPL_CG_CALLER) const { return ::__any_sync(mask_, p, CUGUARD_IMPL_CG_SITE); }            \
  int all(int p, CUGUARD_IMPL_CG_CALLER) const { return ::__all_sync(mask_, p, CUGUARD_IMPL_CG_SITE); }            \
  unsigned ballot(int p, CUGUARD_IMPL_CG_CALLER) const { return details::lanes_ops::ballot(mask_, p, CUGUARD_IMPL_CG_SITE); } \
  template <class T>                                                                                              \
  unsigned match_any(T v, CUGUARD_IMPL_CG_CALLER) const {                                                         \
    return details::lanes_ops::match(mask_, v, nullptr, CUGUARD_IMPL_CG_SITE);                                    \
  }                                                                                                               \
  template <class T>                                                                                              \
  unsigned match_all(T v, int& pred, CUGUARD_IMPL_CG_CALLER) const {                                              \
    bool all = false;                                                                                             \
    const unsigned m = details::lanes_ops::match(mask_, v, &all, CUGUARD_IMPL_CG_SITE);                           \
    pred = all ? 1 : 0;                                                                                           \
    return all ? m : 0u;                                                                                          \
  }

/// The threads of a warp that call coalesced_threads() together, or a part of them.
class coalesced_group : public thread_group {
 public:
  static constexpr unsigned _group_id = details::coalesced_group_id;
  explicit coalesced_group(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1)
      : thread_group(details::coalesced_group_id, static_cast<unsigned>(__builtin_popcount(mask)), mask),
        meta_rank_(meta_rank), meta_size_(meta_size) {}
  unsigned size() const { return static_cast<unsigned>(size_); }
  unsigned num_threads() const { return static_cast<unsigned>(size_); }
  unsigned thread_rank() const { return details::rank_in(mask_); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  CUGUARD_IMPL_CG_LANE_OPS

 private:
  unsigned meta_rank_, meta_size_;
};
/// The lanes of the caller's warp that reach this call together (emulation waits until no other
/// thread of the block can go on, then groups the lanes waiting at the same call).
inline coalesced_group coalesced_threads(CUGUARD_IMPL_CG_CALLER) {
  return coalesced_group(::cuguard::detail::engine::runner().converge({CUGUARD_IMPL_CG_SITE}));
}

template <unsigned Size, class Parent = void>
class thread_block_tile;

/// A tile of `Size` consecutive threads of the block (a power of 2 up to 1024): tiled_partition<Size>.
/// One of several warps (more than 32: its parent a block_tile_memory's this_thread_block(), or
/// any block here) has sync, shfl, any and all, as CUDA's.
template <unsigned Size>
class thread_block_tile<Size, void> : public thread_group {
  static_assert(Size != 0 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "thread_block_tile<Size>: Size must be a power of 2 from 1 to 1024");
  static constexpr bool multi_warp = Size > 32;
  template <class T>
  using warp_only = std::enable_if_t<sizeof(T) != 0 && !multi_warp, T>;

 public:
  static constexpr unsigned _group_id = details::coalesced_group_id;
  explicit thread_block_tile(unsigned meta_rank = 0, unsigned meta_size = 1)
      : thread_group(details::coalesced_group_id, Size, multi_warp ? ~0u : details::tile_mask(Size), multi_warp ? Size : 0),
        meta_rank_(meta_rank), meta_size_(meta_size) {}
  static constexpr unsigned size() { return Size; }
  static constexpr unsigned num_threads() { return Size; }
  static unsigned thread_rank() { return details::block_rank() % Size; }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(CUGUARD_IMPL_CG_CALLER) const {
    if constexpr (multi_warp)
      details::engine::runner().tile_barrier(Size, {CUGUARD_IMPL_CG_SITE});
    else
      details::lanes_ops::sync(mask_, CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  T shfl(T v, unsigned src, CUGUARD_IMPL_CG_CALLER) const {
    if constexpr (multi_warp) {
      T out = v;
      details::engine::runner().tile_gather(reinterpret_cast<std::uintptr_t>(&v), Size, {CUGUARD_IMPL_CG_SITE},
                                            [&](unsigned k, std::uint64_t word) {
                                              if (k == src % Size) std::memcpy(static_cast<void*>(&out), reinterpret_cast<const void*>(static_cast<std::uintptr_t>(word)), sizeof(T));
                                            });
      return out;
    } else {
      return details::lanes_ops::shfl(mask_, v, src, CUGUARD_IMPL_CG_SITE);
    }
  }
  int any(int p, CUGUARD_IMPL_CG_CALLER) const { return vote(p, CUGUARD_IMPL_CG_SITE) != 0; }
  int all(int p, CUGUARD_IMPL_CG_CALLER) const { return vote(p, CUGUARD_IMPL_CG_SITE) == Size; }
  template <class T>
  warp_only<T> shfl_down(T v, unsigned delta, CUGUARD_IMPL_CG_CALLER) const {
    return details::lanes_ops::shfl_down(mask_, v, delta, CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  warp_only<T> shfl_up(T v, unsigned delta, CUGUARD_IMPL_CG_CALLER) const {
    return details::lanes_ops::shfl_up(mask_, v, delta, CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  warp_only<T> shfl_xor(T v, unsigned bits, CUGUARD_IMPL_CG_CALLER) const {
    return details::lanes_ops::shfl_xor(mask_, v, bits, CUGUARD_IMPL_CG_SITE);
  }
  template <class T = unsigned>
  warp_only<T> ballot(int p, CUGUARD_IMPL_CG_CALLER) const {
    return details::lanes_ops::ballot(mask_, p, CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  std::enable_if_t<sizeof(T) != 0 && !multi_warp, unsigned> match_any(T v, CUGUARD_IMPL_CG_CALLER) const {
    return details::lanes_ops::match(mask_, v, nullptr, CUGUARD_IMPL_CG_SITE);
  }
  template <class T>
  std::enable_if_t<sizeof(T) != 0 && !multi_warp, unsigned> match_all(T v, int& pred, CUGUARD_IMPL_CG_CALLER) const {
    bool all_same = false;
    const unsigned m = details::lanes_ops::match(mask_, v, &all_same, CUGUARD_IMPL_CG_SITE);
    pred = all_same ? 1 : 0;
    return all_same ? m : 0u;
  }

 private:
  // How many of the tile's threads (of those that exist and have not exited: all, on a GPU) hold `p`.
  unsigned vote(int p, CUGUARD_IMPL_CG_CALLER) const {
    if constexpr (multi_warp) {
      unsigned yes = 0, live = 0;
      details::engine::runner().tile_gather(p != 0 ? 1u : 0u, Size, {CUGUARD_IMPL_CG_SITE}, [&](unsigned, std::uint64_t word) {
        ++live;
        yes += static_cast<unsigned>(word);
      });
      return yes == live ? Size : yes;
    } else {
      const unsigned live_lanes = static_cast<unsigned>(__builtin_popcount(::__activemask() & mask_));
      const unsigned yes = static_cast<unsigned>(__builtin_popcount(::__ballot_sync(mask_, p, CUGUARD_IMPL_CG_SITE)));
      return yes == live_lanes ? Size : yes;
    }
  }
  unsigned meta_rank_, meta_size_;
};
/// The same tile, its parent's type kept (tiled_partition<Size>(parent) returns it).
template <unsigned Size, class Parent>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  using thread_block_tile<Size, void>::thread_block_tile;
};
#undef CUGUARD_IMPL_CG_LANE_OPS

/// The tile of `Size` threads of `parent` (a thread_block or a larger tile) the caller is in.
template <unsigned Size, class Parent>
thread_block_tile<Size, Parent> tiled_partition(const Parent& parent) {
  const unsigned long long n = parent.num_threads();
  return thread_block_tile<Size, Parent>(static_cast<unsigned>(parent.thread_rank() / Size),
                                         static_cast<unsigned>((n + Size - 1) / Size));
}
/// The caller's tile of `size` threads of `parent`, as a thread_group (a power of 2, at most 32).
inline thread_group tiled_partition(const thread_group& parent, unsigned size) {
  details::check_tile_size(size, "tiled_partition");
  struct tile : thread_group {
    explicit tile(unsigned s, unsigned mask) : thread_group(details::coalesced_group_id, s, mask) {}
  };
  return tile(size, details::tile_mask(size) & (parent.get_type() == details::coalesced_group_id ? parent._cuguard_lanes() : ~0u));
}
/// The caller's part of `parent` of `size` consecutive ranks.
inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned size) {
  details::check_tile_size(size, "tiled_partition");
  const unsigned mine = parent.thread_rank() / size;
  unsigned mask = 0, rank = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (parent._cuguard_lanes() >> l & 1u) mask |= (rank++ / size == mine ? 1u : 0u) << l;
  return coalesced_group(mask, mine, (parent.num_threads() + size - 1) / size);
}
/// The lanes of `group` whose `label` equals the caller's (labeled_partition) or whose
/// predicate does (binary_partition).
template <class Group, class Label>
coalesced_group labeled_partition(const Group& group, Label label, CUGUARD_IMPL_CG_CALLER) {
  const unsigned mask = group._cuguard_lanes();
  const unsigned ranks = details::lanes_ops::match(mask, label, nullptr, CUGUARD_IMPL_CG_SITE);
  unsigned lanes = 0, rank = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) lanes |= (ranks >> rank++ & 1u) << l;
  return coalesced_group(lanes);
}
template <class Group>
coalesced_group binary_partition(const Group& group, bool predicate, CUGUARD_IMPL_CG_CALLER) {
  return labeled_partition(group, predicate ? 1u : 0u, CUGUARD_IMPL_CG_SITE);
}

/// The calling thread alone.
inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(details::block_rank(), details::block_size()); }

inline void thread_group::sync(const char* file, const char* function, unsigned line) const {
  if (type_ == details::thread_block_id) return thread_block::sync(CUGUARD_IMPL_CG_SITE);
  if (type_ == details::grid_group_id) return grid_group::sync(CUGUARD_IMPL_CG_SITE);
  if (span_ != 0) return details::engine::runner().tile_barrier(span_, {CUGUARD_IMPL_CG_SITE});
  details::lanes_ops::sync(mask_, CUGUARD_IMPL_CG_SITE);
}
template <class Group>
void sync(const Group& g, CUGUARD_IMPL_CG_CALLER) {
  g.sync(CUGUARD_IMPL_CG_SITE);
}
template <class Group>
auto thread_rank(const Group& g) -> decltype(g.thread_rank()) {
  return g.thread_rank();
}
template <class Group>
auto group_size(const Group& g) -> decltype(g.num_threads()) {
  return g.num_threads();
}

} // namespace cooperative_groups

#include <cuguard/detail/emulation/cooperative_algorithms.hpp> // IWYU pragma: export
