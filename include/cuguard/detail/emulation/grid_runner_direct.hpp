// SPDX-License-Identifier: Apache-2.0
// grid_runner's direct threads, defined: the threads of a block that run as plain calls on the
// scheduler's stack, first in thread order with no fiber written (the in-order start, until a
// thread waits), then each not-started thread of a pass.
#pragma once
// Part of <cuguard/detail/emulation/grid_runner.hpp>, which includes it after the class.

#if CUGUARD_IMPL_DIRECT_THREADS
CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

// A block's first pass, in thread order: each thread is a call of `Thread(arg)` in this loop
// (the kernel's call inlined in it), on the scheduler's stack, with no fiber written (a block
// whose threads never wait runs as this loop alone). The first thread that waits, exits or reads
// other threads' states writes the fibers (write_fibers_in_order) and ends as a direct thread;
// the pass goes on in run_direct. Returns to run_passes when the block is done, a thread threw,
// or at a thread that waited before.
template <void (*Thread)(void*)>
void grid_runner::in_order_start(grid_runner& r, void* arg) {
  r.begin_in_order();
  unsigned t = 0;
  uint3 idx{0, 0, 0}; // t's threadIdx, kept here: the loop alone writes it while in order
  for (;;) {
    try {
      Thread(arg);
    } catch (...) {
      r.error_ = std::current_exception();
      r.fibers_in_order(); // t ends as a direct thread that threw
    }
    if (!r.in_order_) break;             // t waited, read other threads' states or threw: a direct thread now
    if (!r.end_in_order(t, idx)) return; // the block is done
  }
  if (r.end_direct(t)) r.run_direct(t);
}

// Thread t, not started, as a call of the launch's body on the scheduler's stack; then, in this
// loop, each next thread of the pass while it has not started either. Returns to run_passes at
// the pass's end or at a thread that waited before.
__attribute__((noinline)) inline void grid_runner::run_direct(unsigned t) {
  set_running(); // once: end_direct leaves the pointers set for the next direct thread
  do {
    begin_direct(t);
    try {
      body_.thread(body_.arg);
    } catch (...) {
      error_ = std::current_exception();
    }
  } while (end_direct(t));
}

// The in-order start of a block: its threads run in thread order, one call each, until one
// waits (in_order_ is cleared and the fibers are written: fibers_in_order) or all returned.
inline void grid_runner::begin_in_order() {
  show_ids(0, uint3{0, 0, 0});
  set_running();
}
// Thread t, of threadIdx idx, returned: true with t the next thread, entered; false where t was
// the block's last.
inline bool grid_runner::end_in_order(unsigned& t, uint3& idx) {
  races_.end_segment(t);
  if (++t == threads_) {
    finished_ = threads_;
    stop_in_order();
    return false;
  }
  keep_default_float_modes(); // every thread starts from the default floating-point modes
  next_thread_idx(idx, block_ids_.block_dim);
  show_ids(t, idx);
  return true;
}
// The in-order start ends: the block is done.
inline void grid_runner::stop_in_order() {
  in_order_ = false;
  clear_running();
}
// The running thread of an in-order start calls on the scheduler to wait, exit or read the
// states of other threads: the fibers are written as the start left them (the threads before
// it returned; it runs, directly; those after it have not started), and the pass goes on after it.
__attribute__((noinline)) inline void grid_runner::write_fibers_in_order() {
  in_order_ = false;
  const unsigned t = current_;
  for (unsigned u = 0; u < t; ++u) fibers_[u].st = fiber_state::done;
  prepare_fibers(t);
  fibers_[t].stack = scheduler_stack_;
  fibers_[t].on_scheduler_stack = true;
  finished_ = t;
  returned_ = t > 0 ? 0 : -1;
  pass_at_ = t + 1;
  pass_ran_ = pass_moved_ = true;
}

// Thread t runs as a call on the scheduler's stack (the running-thread pointers: run_direct's).
inline void grid_runner::begin_direct(unsigned t) {
  fiber& f = fibers_[t];
  f.stack = scheduler_stack_;
  f.on_scheduler_stack = true;
  hand_over(t);
}

// Direct thread t returned: true with t the next thread of the pass where it has not started
// (the loop runs it); false where run_passes goes on (it resumes a thread that waited before,
// or the pass ended).
inline bool grid_runner::end_direct(unsigned& t) {
  fiber& f = fibers_[t];
  returned(t);
  f.st = fiber_state::done;
  ++finished_;
  pass_moved_ = true;
  races_.end_segment(current_); // leave(), but for the running-thread pointers: the next
                                // direct thread sets the same ones (enter), the others clear them
  if (!f.on_scheduler_stack) resumed_direct_done(f);
  // As every fiber starts from the default floating-point modes, so does every direct
  // thread: a thread that changed the rounding or flush-to-zero mode passes it on to none.
  keep_default_float_modes();
  unsigned next;
  if (stopped() || !next_ready_of_pass(next) || fibers_[next].stack >= 0) { // run_passes resumes it
    clear_running();
    return false;
  }
  ++pass_at_;
  t = next;
  return true;
}

// The running thread waits and runs on the scheduler's stack: the stack becomes the thread's,
// and the next thread of the pass goes on (started on a stack of its own where it has not), or a
// scheduler on a fresh stack at the pass's end. Returns when the thread is resumed.
__attribute__((noinline)) inline void grid_runner::leave_scheduler_stack(fiber& f) {
  f.on_scheduler_stack = false;
  races_.end_segment(current_);
  void* next = next_context(false);
  cuguard_impl_fiber_switch(&f.context.sp, next);
}

// The next fiber of the pass, handed over to; else the scheduler: the one that resumed the running
// thread (parked in resume), or, where the running thread's stack was the scheduler's, a new one.
inline void* grid_runner::next_context(bool finished) {
  unsigned next;
  if (!(finished && stopped()) && next_fiber_of_pass(next)) {
    hand_over(next);
    return fibers_[next].context.sp;
  }
  clear_running();
  return scheduler_parked_ ? main_.sp : new_scheduler();
}

// A direct thread returned on a stack that became its own when it waited: the stack is free
// once this thread switched away for the last time. Hands over as switch_to_main does.
__attribute__((noinline)) inline void grid_runner::resumed_direct_done(fiber& f) {
  void* next = next_context(true);
  stacks_.give_back(f.stack);
  void* discard = nullptr;
  cuguard_impl_fiber_switch(&discard, next);
  std::abort(); // unreachable
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
#else
CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {
inline void grid_runner::write_fibers_in_order() {} // every thread is a fiber from its start
} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
#endif
