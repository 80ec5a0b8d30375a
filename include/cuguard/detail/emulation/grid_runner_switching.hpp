// SPDX-License-Identifier: Apache-2.0
// grid_runner's switches between the scheduler and the threads it runs, defined: opening the
// block barrier, the next fiber a waiting thread hands over to, entering and leaving a thread,
// resuming one, a thread's first frame, the scheduler on a fresh stack, and the runtime's own
// thread_local state kept out of the race detector; and what device code asks of the engine
// through the device seam.
#pragma once
// Part of <cuguard/detail/emulation/grid_runner.hpp>, which includes it after the class.

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

// Every live thread of the block waits at __syncthreads() (at_barrier_ of them): it opens,
// and the barrier's divergence is looked for only where a thread returned since the last
// barrier or the threads wait at different sites.
inline void grid_runner::open_block_barrier() {
  if (returned_ >= 0 || barrier_sites_differ_)
    note_divergence(fibers_.data(), threads_, returned_, block_ids_.block_idx, problem_);
  races_.block_barrier();
  returned_ = -1;
  for (unsigned t = 0; t < threads_; ++t)
    if (fibers_[t].st == fiber_state::at_barrier) fibers_[t].st = fiber_state::ready;
  at_barrier_ = 0;
  barrier_sites_differ_ = false;
}

// The block's passes. Their state is the runner's (pass_at_, pass_ran_, draw_), so that a
// scheduler on a fresh stack goes on where the last one left off (in thread order, after
// in_order_start). Returns when all finished, or one trapped or threw.
inline void grid_runner::run_passes() {
#if CUGUARD_IMPL_DIRECT_THREADS
  if (in_order_) body_.in_order(*this, body_.arg);
#endif
  for (;;) {
    if (stopped() || finished_ == threads_) return;
    if (pass_at_ == threads_) {
      // Every live thread waits at __syncthreads() (none can be ready): the barrier opens; else,
      // where no thread could go on in the pass (none ran, or those that ran only spun), the
      // warp barriers open. Threads that spin with none waiting at a warp barrier go on
      // spinning, as on a GPU.
      if (at_barrier_ + finished_ == threads_) {
        open_block_barrier();
      } else if ((!pass_ran_ || (pass_spun_ && !pass_moved_)) && any_at_warp_barrier()) {
        try {
          release_warp_barriers(fibers_.data(), threads_, block_ids_.block_idx, warp_problem_, races_);
        } catch (...) {
          error_ = std::current_exception();
          return;
        }
      }
      pass_ran_ = pass_spun_ = pass_moved_ = false;
      if (schedule_.kind == schedule::order::random) schedule_.order_threads(order_.data(), threads_, draw_);
      pass_at_ = 0;
      continue;
    }
    const unsigned t = order_[pass_at_++];
    if (fibers_[t].st != fiber_state::ready) continue;
    pass_ran_ = true;
#if CUGUARD_IMPL_DIRECT_THREADS
    if (fibers_[t].stack < 0) {
      run_direct(t); // after the block's in-order start
      continue;
    }
#endif
    resume(t);
  }
}

inline bool grid_runner::any_at_warp_barrier() const noexcept {
  for (unsigned t = 0; t < threads_; ++t)
    if (fibers_[t].st == fiber_state::at_warp_barrier) return true;
  return false;
}

inline void grid_runner::phase_completed() {
  races_.end_segment(current_);
  races_.block_barrier();
}

inline void grid_runner::yield() {
  fibers_in_order();
  pass_spun_ = true;
  wait(fiber_state::ready);
}

// The next thread of the pass, `t`, where it runs on a stack of its own: taken from the pass
// (false: the scheduler goes on, for the pass's end; the callers test stopped() first). With
// direct threads, a thread not started is started here on a fresh stack, so that a waiting
// thread hands over to it with no scheduler between (not a scheduler made anew for each thread
// of a barrier kernel's first pass); otherwise the scheduler starts it (false).
inline bool grid_runner::next_fiber_of_pass(unsigned& t) {
  if (!next_ready_of_pass(t)) return false;
  fiber& f = fibers_[t];
  if (f.on_scheduler_stack) return false;
  if (f.stack < 0) {
    if (!CUGUARD_IMPL_DIRECT_THREADS) return false;
    start(f);
  }
  ++pass_at_;
  pass_ran_ = true;
  return true;
}

inline void grid_runner::enter(unsigned t) {
  hand_over(t);
  set_running();
}

// A running thread hands over to thread t: the running-thread pointers stay as they are.
inline void grid_runner::hand_over(unsigned t) { show_ids(t, fibers_[t].thread_idx); }

// A thread of this runner runs on this OS thread (clear_running undoes it).
inline void grid_runner::set_running() {
  current_thread = &block_ids_;
  platform::set_running(&seam_);
}

// Thread t, of threadIdx `idx`, is the one running (blockIdx, blockDim and gridDim: written
// once for the block, in prepare).
inline void grid_runner::show_ids(unsigned t, const uint3& idx) {
  current_ = t;
  ::threadIdx = idx;
}

inline void grid_runner::leave() {
  races_.end_segment(current_);
  clear_running();
}

inline void grid_runner::clear_running() {
  current_thread = nullptr;
  platform::set_running(nullptr);
}

#if CUGUARD_IMPL_DIRECT_THREADS
inline void grid_runner::scheduler_entry() {
  grid_runner* self = current_runner;
  self->run_passes();
  void* discard = nullptr;
  cuguard_impl_fiber_switch(&discard, self->os_sp_); // the block is done: back to run_block
  std::abort();                                       // unreachable
}
#endif

__attribute__((noinline)) inline void grid_runner::resume(unsigned t) {
  if (fibers_[t].stack < 0) start(fibers_[t]);
  enter(t);
  asan_leaving(&main_fake_stack_, stacks_.bottom(fibers_[t].stack), stacks_.size());
  scheduler_parked_ = true;
  switch_context(main_, fibers_[t].context);
  scheduler_parked_ = false;
  asan_arrived(main_fake_stack_, nullptr, nullptr);
  clear_running();
}

inline void grid_runner::protect_runtime() {
  if (protected_) return;
  protected_ = true;
  races_.watch(shared_);
  races_.protect(this, sizeof *this);
  races_.protect(&::threadIdx, sizeof ::threadIdx);
  races_.protect(&::blockIdx, sizeof ::blockIdx);
  races_.protect(&::blockDim, sizeof ::blockDim);
  races_.protect(&::gridDim, sizeof ::gridDim);
  races_.protect(&current_runner, sizeof current_runner);
  races_.protect(&current_thread, sizeof current_thread);
  races_.protect(&platform::running, sizeof platform::running);
  races_.protect(&platform::watched_spaces, sizeof platform::watched_spaces);
}

// The running thread waits (will_resume) or finished: what it wrote is known (the race
// detector), and the next thread runs. A finished thread's stack is free once it switched away
// from it, and given back after the next context is chosen (which may take a stack).
inline void grid_runner::switch_to_main(bool will_resume) {
  races_.end_segment(current_);
  fiber& f = fibers_[current_];
#if CUGUARD_IMPL_DIRECT_THREADS
  void* next = next_context(!will_resume);
  if (!will_resume) stacks_.give_back(f.stack);
  cuguard_impl_fiber_switch(&f.context.sp, next);
#else
  if (!will_resume) stacks_.give_back(f.stack);
#  if !CUGUARD_IMPL_ASAN_RUNTIME // (ASan's fiber annotations assume every switch passes the scheduler)
  // A thread that waits or finishes hands over to the next thread of the pass that waited
  // before, as the scheduler would resume it: one switch, not two.
  unsigned next;
  if ((will_resume || !stopped()) && next_fiber_of_pass(next)) {
    hand_over(next);
    switch_context(f.context, fibers_[next].context);
    return;
  }
#  endif
  asan_leaving(will_resume ? &f.fake_stack : nullptr, main_stack_bottom_, main_stack_size_);
  switch_context(f.context, main_);
  asan_arrived(f.fake_stack, &main_stack_bottom_, &main_stack_size_);
#endif
}

inline void grid_runner::entry() {
  grid_runner* self = current_runner;
  asan_arrived(nullptr, &self->main_stack_bottom_, &self->main_stack_size_);
  try {
    self->body_.thread(self->body_.arg);
  } catch (...) {
    self->error_ = std::current_exception();
  }
  // Returned from the kernel (a thread stopped at a violation ends in exit_thread instead); the
  // lowest such thread, whatever the schedule.
  self->returned(self->current_);
  self->finish_current();
  self->switch_to_main(false);
}

/// What device code asks of the engine through the device seam (detail/platform/device.hpp).
struct seam_functions {
  static void exit_thread(void* runner) { static_cast<grid_runner*>(runner)->exit_thread(); }
  static void trap(void* runner) { static_cast<grid_runner*>(runner)->trap(); }
  static bool is_shared(void* runner, const void* p) { return static_cast<grid_runner*>(runner)->is_shared(p); }
  static void thread_idx(void*, unsigned (&idx)[3]) { // the OS thread's threadIdx: show_ids keeps it
    idx[0] = ::threadIdx.x;
    idx[1] = ::threadIdx.y;
    idx[2] = ::threadIdx.z;
  }
  static void note_shared(void* runner, void* p, std::size_t bytes, int count, platform::access_kind kind,
                          const source_site& site, platform::describe_access describe, const void* context) {
    static_cast<grid_runner*>(runner)->note_shared(p, bytes, count, kind, site, describe, context);
  }
};
inline const platform::emulated_engine* grid_runner::seam_engine() noexcept {
  static constexpr platform::emulated_engine engine{
      &seam_functions::exit_thread, &seam_functions::trap, &seam_functions::is_shared, &seam_functions::note_shared,
      &seam_functions::thread_idx};
  return &engine;
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
