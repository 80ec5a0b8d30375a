// SPDX-License-Identifier: Apache-2.0
// The grid-wide barrier of a cooperative launch under emulation (cooperative groups'
// this_grid().sync()): every block of such a grid runs on an OS thread of its own, as every
// block of it is resident on a GPU, and a block's OS thread waits here until every block that
// has not finished arrives.
#pragma once

#include <cuguard/config.hpp>

#include <vector_types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// Blocks of a cooperative grid that passed this_grid().sync() a different number of times: one
/// returned while others waited (on a GPU they would wait for it forever; emulation lets them go
/// on). Kept: the block that passed fewest (the lowest such), whatever the order the blocks ran in.
struct grid_sync_problem {
  bool found;
  uint3 finished;     ///< a block that passed fewest
  std::uint64_t syncs; ///< how many it passed
  std::uint64_t most; ///< how many another block passed
};

class grid_barrier {
 public:
  /// A cooperative grid of `blocks` blocks starts (one at a time: the block pool runs one grid).
  void begin(std::uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mutex_);
    expected_ = blocks;
    arrived_ = 0;
    fewest_ = ~std::uint64_t{0};
    most_ = 0;
    fewest_block_ = ~std::uint64_t{0};
    active_.store(true, std::memory_order_release);
  }
  void end() { active_.store(false, std::memory_order_release); }
  /// True while a cooperative grid runs (grid_group::is_valid()).
  bool active() const noexcept { return active_.load(std::memory_order_acquire); }

  /// The calling block arrives; returns once every block that has not finished arrived.
  void arrive_and_wait() {
    ++passed();
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ >= expected_) return open();
    opened_.wait(lock, [&] { return generation_ != generation; });
  }

  /// Block `block` (numbered `number`, x fastest) finished on the calling OS thread: the barrier
  /// no longer waits for it.
  void finish(uint3 block, std::uint64_t number) {
    const std::uint64_t syncs = passed();
    passed() = 0;
    std::lock_guard<std::mutex> lock(mutex_);
    --expected_;
    if (syncs > most_) most_ = syncs;
    if (syncs < fewest_ || (syncs == fewest_ && number < fewest_block_)) {
      fewest_ = syncs;
      fewest_block_ = number;
      fewest_at_ = block;
    }
    if (arrived_ != 0 && arrived_ >= expected_) open();
  }

  /// What the grid's blocks did at its barrier (found false: each passed it as often).
  grid_sync_problem problem() {
    std::lock_guard<std::mutex> lock(mutex_);
    return grid_sync_problem{fewest_ != most_ && fewest_block_ != ~std::uint64_t{0}, fewest_at_, fewest_, most_};
  }

 private:
  // The barriers the block that runs on this OS thread passed.
  static std::uint64_t& passed() {
    static thread_local std::uint64_t n = 0;
    return n;
  }
  void open() {
    arrived_ = 0;
    ++generation_;
    opened_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable opened_;
  std::uint64_t expected_ = 0, arrived_ = 0, generation_ = 0;
  std::uint64_t fewest_ = 0, most_ = 0, fewest_block_ = 0;
  uint3 fewest_at_{};
  std::atomic<bool> active_{false};
};

/// The process's grid barrier (one cooperative grid runs at a time).
inline grid_barrier& cooperative_grid() {
  static grid_barrier b;
  return b;
}

/// Set while the calling host thread makes a cooperative launch (cudaLaunchCooperativeKernel):
/// the launch runs every block at once (detail::run_blocks).
inline thread_local bool cooperative_launch = false;
struct cooperative_scope {
  bool was;
  explicit cooperative_scope(bool on) noexcept : was(cooperative_launch) { cooperative_launch = on; }
  ~cooperative_scope() { cooperative_launch = was; }
  cooperative_scope(const cooperative_scope&) = delete;
  cooperative_scope& operator=(const cooperative_scope&) = delete;
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
