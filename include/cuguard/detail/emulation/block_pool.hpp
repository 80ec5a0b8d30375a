// SPDX-License-Identifier: Apache-2.0
// Emulation: the blocks of a grid on several OS threads, reported as if they ran in order.
//
// Each OS thread takes the next block not yet taken, so each takes its blocks in increasing
// order, and records violations in a report channel of its own: its first record is that of its
// lowest block with a violation. When the grid is done the record of the lowest block among them
// goes to the launch's channel and every count is added, which is what running the blocks one
// after another records. The scheduler's findings (divergent barriers, races) and a kernel that
// throws or traps are taken the same way: the lowest block's. Where a block threw or trapped,
// what blocks after it recorded and counted is dropped, as they would not have run.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/grid_barrier.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/emulation.hpp>

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The number of OS threads that CUGUARD_EMULATION_THREADS asks for (null or empty: one per
/// core); throws std::invalid_argument for a value it cannot read.
inline unsigned threads_from_text(const char* s) {
  if (s == nullptr || *s == '\0') {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1u : cores;
  }
  char* end = nullptr;
  const unsigned long v = std::strtoul(s, &end, 10);
  if (*s < '0' || *s > '9' || end == nullptr || *end != '\0' || v == 0 || v > 1024)
    throw std::invalid_argument(std::string("cuguard emulation: CUGUARD_EMULATION_THREADS is '") + s +
                                "'; expected a number of threads from 1 to 1024");
  return static_cast<unsigned>(v);
}

/// The OS threads a grid's blocks run on (1: one after another, on the launching thread):
/// CUGUARD_EMULATION_THREADS's, read at the first launch (tests assign it).
inline unsigned& emulation_threads() {
  static unsigned n = threads_from_text(platform::environment(platform::setting::emulation_threads));
  return n;
}

/// Grids with fewer threads than this run on the launching thread alone: waking the others
/// would cost more than they save.
inline constexpr std::uint64_t parallel_grid_threads = 2048;

class block_pool {
 public:
  using findings = engine::grid_findings;
  using runner_type = engine::grid_runner;

  /// The process's pool (made anew in the child of a fork, which has none of its threads).
  static block_pool& get() {
    static const bool registered = [] {
      ::pthread_atfork(nullptr, nullptr, [] { instance() = nullptr; });
      return true;
    }();
    (void)registered;
    block_pool*& p = instance();
    if (p == nullptr) p = new block_pool; // never destroyed: its threads wait until the process ends
    return *p;
  }

  /// Runs the grid's blocks on `workers` OS threads, this one among them; `cooperative`: one
  /// thread a block, all at once, this_grid().sync() their barrier (engine::cooperative_grid()).
  findings run(unsigned workers, dim3 grid, dim3 block, std::size_t shared, const runner_type::body& body,
               bool cooperative = false) {
    if (engine::current_runner != nullptr)
      throw std::logic_error("cuguard emulation: a kernel cannot launch another kernel (no dynamic parallelism)");
    engine::check_launch_configuration(grid, block);
    std::lock_guard<std::mutex> one_grid(launch_);
    while (threads_.size() + 1 < workers) {
      const unsigned index = static_cast<unsigned>(threads_.size()) + 1;
      threads_.emplace_back([this, index] { serve(index); });
      threads_.back().detach();
    }
    while (results_.size() < workers) results_.push_back(std::make_unique<result>());
    for (unsigned i = 0; i < workers; ++i) results_[i]->reset(emulated_device_state);
    grid_ = grid;
    block_ = block;
    shared_ = shared;
    body_ = body;
    blocks_ = std::uint64_t{grid.x} * grid.y * grid.z;
    cooperative_ = cooperative;
    if (cooperative) engine::cooperative_grid().begin(blocks_);
    next_.store(0);
    stop_.store(false);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      workers_ = workers;
      waiting_for_ = workers - 1;
      ++generation_;
    }
    start_.notify_all();
    work(0);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return waiting_for_ == 0; });
    }
    if (!cooperative) return merge(workers);
    engine::cooperative_grid().end();
    findings out = merge(workers);
    out.grid_sync = engine::cooperative_grid().problem();
    return out;
  }

 private:
  struct result {
    channel ch;
    channel_counters counters;
    device_state state;
    findings found;
    std::exception_ptr error;
    bool trapped;
    std::uint64_t failed_block; ///< the block that threw or trapped
    /// The blocks this thread took, in order, each with the count of violations before it.
    std::vector<std::pair<std::uint64_t, unsigned long long>> starts;

    void reset(const device_state& launch) {
      std::memset(static_cast<void*>(&ch), 0, sizeof ch);
      counters = channel_counters{};
      state = launch;
      if (launch.report != nullptr && launch.counters != nullptr) {
        state.report = &ch;
        state.counters = &counters;
      }
      found = findings{};
      error = nullptr;
      trapped = false;
      failed_block = 0;
      starts.clear();
    }

    /// Its violations in the blocks up to `last`.
    unsigned long long count_up_to(std::uint64_t last) const noexcept {
      for (const auto& s : starts)
        if (s.first > last) return s.second;
      return counters.count;
    }
  };

  static block_pool*& instance() {
    static block_pool* p = nullptr;
    return p;
  }

  std::uint64_t number(uint3 b) const noexcept {
    return b.x + std::uint64_t{grid_.x} * (b.y + std::uint64_t{grid_.y} * b.z);
  }
  std::uint64_t number(const unsigned (&b)[3]) const noexcept { return number(uint3{b[0], b[1], b[2]}); }

  void serve(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index >= workers_) continue;
      }
      work(index);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--waiting_for_ == 0) done_.notify_one();
    }
  }

  void work(unsigned index) {
    result& r = *results_[index];
    runner_type& runner = engine::runner_scope::of_this_thread();
    emulated_worker_state = &r.state;
    std::uint64_t running = runner_type::no_block; // the block this thread runs
    try {
      engine::runner_scope scope;
      scope.runner.run(grid_, block_, shared_, body_, [this, &r, &running] {
        finish(running);
        if (stop_.load(std::memory_order_relaxed)) return runner_type::no_block;
        const std::uint64_t b = next_.fetch_add(1, std::memory_order_relaxed);
        if (b >= blocks_) return runner_type::no_block;
        r.starts.emplace_back(b, r.counters.count);
        return running = b;
      });
      r.found = findings{scope.runner.problem(), scope.runner.race(), scope.runner.warp_found(), {}};
    } catch (const engine::trapped&) {
      r.trapped = true;
      r.failed_block = runner.current_block();
      stop_.store(true);
    } catch (...) {
      r.error = std::current_exception();
      r.failed_block = runner.current_block();
      stop_.store(true);
    }
    finish(running);
    emulated_worker_state = nullptr;
  }

  // Block `b` finished (no_block: none): a cooperative grid's barrier no longer waits for it.
  void finish(std::uint64_t& b) {
    if (cooperative_ && b != runner_type::no_block) engine::cooperative_grid().finish(runner_type::block_index(b, grid_), b);
    b = runner_type::no_block;
  }

  // The launch's record and counts from every thread's, then the lowest block's findings, or
  // its exception (rethrown).
  findings merge(unsigned workers) {
    const device_state& launch = emulated_device_state;
    const result* first = nullptr;
    const result* failed = nullptr;
    for (unsigned i = 0; i < workers; ++i) {
      const result& r = *results_[i];
      if ((r.error || r.trapped) && (failed == nullptr || r.failed_block < failed->failed_block)) failed = &r;
    }
    const std::uint64_t last = failed != nullptr ? failed->failed_block : blocks_;
    findings out{};
    std::uint64_t divergent_block = 0, race_block = 0, warp_block = 0;
    const auto keep_lowest = [this](auto& kept, std::uint64_t& kept_block, const auto& found) {
      if (!found.found || (kept.found && number(found.block) >= kept_block)) return;
      kept = found;
      kept_block = number(found.block);
    };
    for (unsigned i = 0; i < workers; ++i) {
      const result& r = *results_[i];
      if (launch.counters != nullptr) launch.counters->count += r.count_up_to(last);
      const std::uint64_t at = number(r.ch.rec.v.block);
      if (r.counters.claim != 0 && at <= last && (first == nullptr || at < number(first->ch.rec.v.block))) first = &r;
      keep_lowest(out.divergent, divergent_block, r.found.divergent);
      keep_lowest(out.race, race_block, r.found.race);
      keep_lowest(out.warp, warp_block, r.found.warp);
    }
    if (first != nullptr && launch.report != nullptr && launch.counters != nullptr && launch.counters->claim == 0) {
      launch.report->rec = first->ch.rec;
      launch.report->started = 1;
      launch.report->ready = 1;
      launch.counters->claim = 1;
      launch.counters->ready = 1;
    }
    if (failed != nullptr) {
      if (failed->trapped) throw engine::trapped{};
      std::rethrow_exception(failed->error);
    }
    return out;
  }

  std::mutex launch_; ///< one grid at a time
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  std::vector<std::unique_ptr<result>> results_;
  std::uint64_t generation_ = 0;
  unsigned workers_ = 0;
  unsigned waiting_for_ = 0;
  dim3 grid_{}, block_{};
  std::size_t shared_ = 0;
  runner_type::body body_{};
  std::uint64_t blocks_ = 0;
  bool cooperative_ = false;
  std::atomic<std::uint64_t> next_{0};
  std::atomic<bool> stop_{false};
};

/// Runs `body` as every thread of the grid: on several OS threads where the grid is large
/// enough and CUGUARD_EMULATION_THREADS allows, on the calling thread otherwise.
inline engine::grid_findings run_blocks(dim3 grid, dim3 block, std::size_t shared, const engine::grid_runner::body& body) {
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  if (engine::cooperative_launch) // (co-resident: the launch checked that the device holds them all)
    return block_pool::get().run(static_cast<unsigned>(blocks), grid, block, shared, body, true);
  const std::uint64_t threads = blocks * block.x * block.y * block.z;
  const unsigned wanted = emulation_threads();
  const unsigned workers = static_cast<unsigned>(blocks < wanted ? blocks : wanted);
  if (workers <= 1 || threads < parallel_grid_threads) return engine::run_grid(grid, block, shared, body);
  return block_pool::get().run(workers, grid, block, shared, body);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
