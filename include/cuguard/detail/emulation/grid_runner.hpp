// SPDX-License-Identifier: Apache-2.0
// The emulation engine's grid runner: the threads of a block run on one OS thread, one at a
// time, deterministically, as fibers (detail/emulation/fiber.hpp) on the engine's stacks.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/barriers.hpp>
#include <cuguard/detail/emulation/block_shared.hpp>
#include <cuguard/detail/emulation/fiber.hpp>
#include <cuguard/detail/emulation/fiber_context.hpp>
#include <cuguard/detail/emulation/race_detector.hpp>
#include <cuguard/detail/emulation/schedule.hpp>
#include <cuguard/detail/emulation/stack_pool.hpp>
#include <cuguard/detail/emulation/warp_lanes.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>

#include <vector_types.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <utility>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// Thrown out of run() when a kernel called __trap().
struct trapped {};

/// Runs the blocks of a grid one after another (x fastest, then y, then z, or those a block
/// source hands out); inside a block the threads run round-robin in the order of the schedule
/// (thread order unless CUGUARD_EMULATION_SCHEDULE says otherwise), each until it finishes or
/// waits at __syncthreads() or a warp-wide operation: a plain call until its first wait, a fiber
/// from then on, and the threads after it in its pass fibers from their start
/// (CUGUARD_IMPL_DIRECT_THREADS; otherwise a fiber from the start; in thread order, no fiber is
/// written until a thread waits, exits or reads others: in_order_start). A barrier opens
/// when every thread of the block (or warp) that has not exited waits at it. A block runs on
/// one OS thread, so `__shared__` (thread_local) storage is shared by the block.
class grid_runner {
 public:
  /// What a grid runs, as a launch gives it: `thread(arg)` runs the kernel as the running
  /// thread; `in_order(runner, arg)` is in_order_start<thread>, a block's threads in turn as
  /// calls of `thread` (inlined in its loop) until one waits.
  struct body {
    void (*thread)(void*);
    void (*in_order)(grid_runner&, void*);
    void* arg;
  };
  /// The body of a launch whose threads run `Thread(arg)`.
  template <void (*Thread)(void*)>
  static body body_of(void* arg) noexcept {
#if CUGUARD_IMPL_DIRECT_THREADS
    return body{Thread, &in_order_start<Thread>, arg};
#else
    return body{Thread, nullptr, arg};
#endif
  }

  grid_runner() = default; // not copied (its stacks are its own)

  /// What a block source returns when it has no block left.
  static constexpr std::uint64_t no_block = ~std::uint64_t{0};

  /// Runs every block of the grid, in order.
  void run(dim3 grid, dim3 block, std::size_t dynamic_shared, const body& work) {
    const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
    std::uint64_t n = 0;
    run(grid, block, dynamic_shared, work, [&] { return n < blocks ? n++ : no_block; });
  }

  /// Runs the blocks that `next()` hands out by number (x fastest, then y, then z: the order
  /// run() takes them in) until it returns no_block.
  template <class Next>
  void run(dim3 grid, dim3 block, std::size_t dynamic_shared, const body& work, Next&& next) {
    check_launch_configuration(grid, block);
    schedule_ = active_schedule();
    const std::size_t threads = std::size_t{block.x} * block.y * block.z;
    reserve(threads);
    protect_runtime();
    races_.begin_grid(shared_.dynamic(), shared_.dynamic_bytes());
    shared_.begin_grid(dynamic_shared);
    dynamic_range = {reinterpret_cast<std::uintptr_t>(shared_.dynamic()), shared_.dynamic_bytes()};
    body_ = work;
    error_ = nullptr;
    problem_ = barrier_problem{};
    warp_problem_ = warp_problem{};
    for (std::uint64_t b = next(); b != no_block; b = next()) {
      current_block_ = b;
      run_block(grid, block, block_index(b, grid), threads);
    }
  }

  /// The blockIdx of block number `b` of `grid` (x fastest, then y, then z).
  static uint3 block_index(std::uint64_t b, dim3 grid) noexcept {
    const std::uint64_t plane = std::uint64_t{grid.x} * grid.y;
    return uint3{static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b % plane / grid.x), static_cast<unsigned>(b / plane)};
  }
  /// The number of the block that runs (or ran last).
  std::uint64_t current_block() const noexcept { return current_block_; }

  /// __syncthreads() at `site`
  void barrier(barrier_site site) {
    fibers_in_order();
    fibers_[current_].site = site;
    // Counted as they arrive, so that the pass's end opens the barrier without a look at every
    // thread's site (where they differ, note_divergence looks)
    if (at_barrier_++ == 0)
      first_barrier_site_ = site;
    else if (!same_site(site, first_barrier_site_))
      barrier_sites_differ_ = true;
    wait(fiber_state::at_barrier);
  }

  /// The running thread spins (sched_yield, nanosleep, __nanosleep: a wait for what another
  /// thread writes): it stays ready, and the block's other threads run first (spin_waits.hpp).
  inline void yield();
  /// A barrier of libcu++'s completes a phase (its notify): for the race detector, what the
  /// block's threads did before is ordered with what they do after, as at a __syncthreads().
  inline void phase_completed();

  /// The grid's first divergent barrier (found false: none).
  const barrier_problem& problem() const noexcept { return problem_; }
  /// The grid's first race on shared memory (found false: none).
  const shared_race& race() const noexcept { return races_.first(); }
  /// The grid's first problem with a warp-synchronous call (found false: none).
  const warp_problem& warp_found() const noexcept { return warp_problem_; }

  /// A warp-synchronous call (__syncwarp(mask), and each exchange of a *_sync intrinsic): waits
  /// until every lane its mask names that has not stopped waits with the same mask (barriers.hpp).
  /// A lane outside its own mask waits for nothing, and that is noted (a GPU leaves it undefined).
  inline void warp_barrier(const warp_call& call);
  /// Exchanges `bits` across the lanes of `call`'s mask: every lane deposits, all wait, each
  /// reads lane `src_lane`'s.
  inline std::uint64_t exchange(std::uint64_t bits, unsigned src_lane, const warp_call& call);
  /// Ballot over the lanes of `call`'s mask that have not exited (`voters`, where given: those lanes).
  inline unsigned ballot(bool predicate, const warp_call& call, unsigned* voters = nullptr);
  /// Every lane of `call`'s mask deposits `bits`; `read(live, words)` then reads them (warp_lanes::gather).
  template <class Read>
  void gather(std::uint64_t bits, const warp_call& call, Read&& read);
  /// coalesced_threads() at `site`: waits until no thread of the block can go on, and returns the
  /// lanes of its warp that wait at the same call then (release_warp).
  inline unsigned converge(const barrier_site& site);
  /// The barrier of the running thread's tile of `span` threads (a power of 2 above 32).
  inline void tile_barrier(unsigned span, const barrier_site& site);
  /// Every thread of the running thread's tile of `span` threads deposits `bits`; `read(k, word)`
  /// then reads each word of a thread k of the tile (its rank) that has not exited, in rank order.
  template <class Read>
  void tile_gather(std::uint64_t bits, unsigned span, const barrier_site& site, Read&& read);
  /// Lanes of this warp that have not exited.
  inline unsigned active_mask();

  /// PTX `exit`: ends the calling thread (its stack is dropped, as a GPU drops it); barriers and
  /// warp-wide operations no longer wait for it.
  [[noreturn]] void exit_thread() {
    fibers_in_order();
#if CUGUARD_IMPL_DIRECT_THREADS
    if (fibers_[current_].on_scheduler_stack) {
      // Its frames and the scheduler's below them are dropped: a scheduler on a fresh stack goes on.
      fibers_[current_].st = fiber_state::done;
      ++finished_;
      leave();
      const int dropped = scheduler_stack_;
      void* next = new_scheduler();
      stacks_.give_back(dropped); // taken again only once this stack is left
      void* discard = nullptr;
      cuguard_impl_fiber_switch(&discard, next);
      std::abort(); // unreachable: a dropped stack is never resumed
    }
#endif
    finish_current();
    switch_to_main(false);
    std::abort(); // unreachable: an exited fiber is never resumed
  }

  /// __trap(): stops the whole grid at once.
  [[noreturn]] void trap() {
    trapped_ = true;
    exit_thread();
  }

  unsigned char* dynamic_shared() noexcept { return shared_.dynamic(); }
  /// The grid's dynamic shared memory as plain data (address, bytes), for a sanitizer's access
  /// hook, which reads it with no call.
  struct { std::uintptr_t begin; std::size_t bytes; } dynamic_range{0, 0};
  std::size_t dynamic_shared_bytes() const noexcept { return shared_.dynamic_bytes(); }

  /// True if `p` points into the running block's shared memory: its dynamic shared memory, or
  /// the thread_local storage of this OS thread, where `__shared__` variables live.
  bool is_shared(const void* p) { return shared_.contains(p); }

  /// The race detector of the running block.
  race_detector& races() noexcept { return races_; }

  /// An access (`kind`) of `count` elements of `bytes` each from `p` to shared memory, by the
  /// running thread: for the race detector, which follows only elements that lie in shared
  /// memory whole (race_detector::watch). `describe` and `context` as race_detector::access takes them.
  void note_shared(void* p, std::size_t bytes, int count, platform::access_kind kind, const source_site& site,
                   platform::describe_access describe, const void* context) {
    races_.access(current_, p, bytes, count, kind, site, describe, context);
  }

 private:
  void reserve(std::size_t threads) {
    if (fibers_.size() >= threads) return;
    fibers_.resize(threads);
    lanes_.reserve(threads);
    order_.resize(threads);
  }

  static void entry();

  // The block, none of its threads started (their fibers: prepare_fibers); a stack for every thread
  // that waits, and one for the scheduler (direct threads). What they share (blockIdx, blockDim, gridDim) is
  // written once: the runner's, and the OS thread's built-in variables; a thread's threadIdx as
  // it is entered.
  void prepare(dim3 grid, dim3 block, uint3 block_idx, std::size_t threads) {
    threads_ = static_cast<unsigned>(threads);
    finished_ = 0;
    at_barrier_ = 0;
    barrier_sites_differ_ = false;
    stacks_.reset(threads + 1);
    block_ids_ = thread_context{uint3{0, 0, 0}, block_idx, block, grid};
    seam_ = block_ids_.as_seen_by_device(seam_engine(), this);
    ::blockIdx = block_idx;
    ::blockDim = block;
    ::gridDim = grid;
  }

  // Threads [from, threads_) of the block, none started; and the order of the first pass.
  void prepare_fibers(unsigned from) {
    const dim3 block = block_ids_.block_dim;
    uint3 idx{from % block.x, from / block.x % block.y, from / (block.x * block.y)}; // then counted on: no division
    for (unsigned t = from; t < threads_; ++t) {
      fiber& f = fibers_[t];
      f.st = fiber_state::ready; // mask, call and site: written where the thread waits, read only then
      f.stack = -1;              // on_scheduler_stack: written where it starts (begin_direct, start)
      f.fake_stack = nullptr;
      f.thread_idx = idx;
      next_thread_idx(idx, block);
    }
    schedule_.order_threads(order_.data(), threads_, draw_);
  }

  void start(fiber& f) {
    f.on_scheduler_stack = false;
    f.stack = stacks_.take();
    make_context(f.context, stacks_.bottom(f.stack), stacks_.size(), &grid_runner::entry);
  }

  // The running thread is done (its stack is given back as it switches away: switch_to_main).
  void finish_current() {
    fibers_[current_].st = fiber_state::done;
    ++finished_;
    pass_moved_ = true;
  }

  void run_block(dim3 grid, dim3 block, uint3 block_idx, std::size_t threads) {
    prepare(grid, block, block_idx, threads);
    races_.begin_block(block_idx, static_cast<unsigned>(threads));
    trapped_ = false;
    returned_ = -1;
    draw_ = schedule_.first_draw(current_block_);
    pass_at_ = 0;
    pass_ran_ = false;
#if CUGUARD_IMPL_DIRECT_THREADS
    // In thread order the block starts as plain calls, its fibers written only where one waits.
    in_order_ = schedule_.kind == schedule::order::forward;
    if (!in_order_) prepare_fibers(0);
    void* first = new_scheduler();
    cuguard_impl_fiber_switch(&os_sp_, first); // back when the block is done, or stopped
#else
    prepare_fibers(0);
    run_passes();
#endif
    if (trapped_) throw trapped{};
    if (error_) std::rethrow_exception(error_);
  }

  // The block's passes: each runs, in the schedule's order, every thread that is ready, until
  // one waits or returns; a pass in which none could go on opens the barriers (defined below the class).
  inline void run_passes();

#if CUGUARD_IMPL_DIRECT_THREADS
  // A scheduler on a fresh stack (scheduler_stack_): its context, to switch to.
  void* new_scheduler() {
    scheduler_stack_ = stacks_.take();
    return new_context(stacks_.bottom(scheduler_stack_), stacks_.size(), &grid_runner::scheduler_entry);
  }
  static void scheduler_entry();

  // A block's first pass in thread order, each thread a call of `Thread(arg)` on the scheduler's
  // stack with no fiber written, until one waits; then run_direct (grid_runner_direct.hpp).
  template <void (*Thread)(void*)>
  static void in_order_start(grid_runner& r, void* arg);
  inline void begin_in_order();
  inline bool end_in_order(unsigned& t, uint3& idx);
  inline void stop_in_order();
  void run_direct(unsigned t);
  inline void begin_direct(unsigned t);
  inline bool end_direct(unsigned& t);
  [[noreturn]] void resumed_direct_done(fiber& f);

  // The running thread waits and runs on the scheduler's stack: the stack becomes the thread's,
  // and the next thread of the pass or a scheduler on a fresh stack goes on. Returns when the
  // thread is resumed.
  void leave_scheduler_stack(fiber& f);
  // What the running thread switches to as it waits or (`finished`) finishes: next_fiber_of_pass,
  // else the scheduler.
  inline void* next_context(bool finished);
#endif

  // A thread of a block's in-order start waits, exits or reads others: the fibers are written first.
  void fibers_in_order() {
    if (in_order_) write_fibers_in_order();
  }
  void write_fibers_in_order();
  // The running thread t stops running: what it wrote is known (the race detector), and the
  // scheduler runs outside any thread (clear_running).
  inline void leave();
  inline void clear_running();
  inline void set_running();
  // Thread t returned from the kernel: the lowest such thread since the barrier, whatever the schedule.
  void returned(unsigned t) {
    if (returned_ < 0 || t < static_cast<unsigned>(returned_)) returned_ = static_cast<int>(t);
  }
  inline void enter(unsigned t);
  inline void hand_over(unsigned t);
  inline void show_ids(unsigned t, const uint3& idx);
  /// What device code asks of this engine through the device seam (defined below the class).
  static inline const platform::emulated_engine* seam_engine() noexcept;

  void wait(fiber_state s) {
    fiber& f = fibers_[current_];
    f.st = s;
    if (s != fiber_state::ready) pass_moved_ = true;
#if CUGUARD_IMPL_DIRECT_THREADS
    if (f.on_scheduler_stack) return leave_scheduler_stack(f);
#endif
    switch_to_main(true);
  }

  // Every live thread of the block waits at __syncthreads(): it opens (defined below the class).
  inline void open_block_barrier();
  // A thread trapped or threw: the block stops. Only a thread that finishes can have stopped it,
  // so a waiting thread hands over without this test.
  bool stopped() const noexcept { return trapped_ || error_; }
  inline bool any_at_warp_barrier() const noexcept;
  // The next thread of the pass that is ready, `t`, left at pass_at_ (false: none).
  bool next_ready_of_pass(unsigned& t) {
    for (unsigned at = pass_at_; at < threads_; ++at) {
      t = order_[at];
      if (fibers_[t].st == fiber_state::ready) {
        pass_at_ = at;
        return true;
      }
    }
    pass_at_ = threads_;
    return false;
  }
  // The next thread of the pass where it runs on a stack of its own, taken from the pass (false:
  // the scheduler goes on; defined below the class).
  inline bool next_fiber_of_pass(unsigned& t);

  void protect_runtime(); // the scheduler's thread_local state is no kernel's shared memory

  void resume(unsigned t); // out of line: swapcontext returns twice, which would clobber the caller's registers
  void switch_to_main(bool will_resume);

  std::vector<fiber> fibers_;
  thread_context block_ids_{};        ///< the running block's ids (its thread_idx unkept: ::threadIdx)
  platform::emulated_thread seam_{};  ///< the same, as device code reads them (the device seam)
  warp_lanes lanes_; ///< the words of warp-wide exchanges
  std::vector<unsigned> order_; ///< the threads of the block in the order of this pass
  schedule schedule_{};
  block_shared shared_; ///< the running block's shared memory
  stack_pool stacks_;
  unsigned current_ = 0;
  bool trapped_ = false;
  fiber_context main_; ///< the scheduler's context while a fiber runs
  bool scheduler_parked_ = false; ///< the scheduler waits in resume() (main_ is its context)
  const void* main_stack_bottom_ = nullptr;
  std::size_t main_stack_size_ = 0;
  void* main_fake_stack_ = nullptr;
  body body_{};
  std::exception_ptr error_;
  int returned_ = -1; ///< a thread that returned from the kernel since the block's last barrier (-1: none)
  unsigned threads_ = 0;     ///< threads of the running block
  unsigned finished_ = 0;    ///< of them, those done (returned, or exited)
  unsigned at_barrier_ = 0;  ///< those waiting at __syncthreads()
  barrier_site first_barrier_site_{}; ///< where the first of them waits
  bool barrier_sites_differ_ = false; ///< another waits elsewhere
  unsigned pass_at_ = 0;     ///< the next position of this pass in order_
  bool pass_ran_ = false;    ///< a thread ran in this pass
  bool pass_spun_ = false;   ///< a thread of this pass yielded (a spin-wait)
  bool pass_moved_ = false;  ///< a thread of this pass waited at a barrier or finished
  std::uint64_t draw_ = 0;   ///< the random schedule's state
  int scheduler_stack_ = -1; ///< the stack the scheduler runs on (direct threads)
  void* os_sp_ = nullptr;    ///< run_block's stack pointer while the block runs (direct threads)
  barrier_problem problem_{};
  warp_problem warp_problem_{};
  race_detector races_;
  std::uint64_t current_block_ = 0;
  bool protected_ = false;
  bool in_order_ = false; ///< the block runs in thread order as plain calls, none waited yet (fibers_ unwritten)
};

/// The runner of the grid this OS thread is running, and the thread it is running.
inline thread_local grid_runner* current_runner = nullptr;
inline thread_local const thread_context* current_thread = nullptr;
/// The runner of the kernel thread this OS thread is running (null: it runs none, host code).
inline grid_runner* kernel_thread_runner() noexcept { return current_thread != nullptr ? current_runner : nullptr; }

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// The runner's switches between the scheduler and its threads, the device seam's functions, and
// its direct threads, defined: part of this header.
#include <cuguard/detail/emulation/grid_runner_switching.hpp>
#include <cuguard/detail/emulation/grid_runner_direct.hpp>
#include <cuguard/detail/emulation/grid_runner_warps.hpp>
