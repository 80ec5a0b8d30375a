// SPDX-License-Identifier: Apache-2.0
// Emulation scheduler: the threads of a block run on one OS thread, one at a time, deterministically.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/emulation/race_detector.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>

#include <vector_types.h>

#include <link.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Switching between fibers: on x86-64 a dozen instructions that save the callee-saved registers
// and the floating-point control words on one stack and load them from another (swapcontext
// also saves and restores the signal mask, two system calls a switch, which made a thread of an
// emulated kernel cost about a microsecond). Elsewhere, ucontext.
#if defined(__x86_64__)
#  define CUGUARD_IMPL_FIBER_SWITCH 1
// One definition in every program however many translation units include it (a COMDAT group).
asm(".pushsection .text.cuguard_impl_fiber_switch,\"axG\",@progbits,cuguard_impl_fiber_switch,comdat\n"
    ".globl cuguard_impl_fiber_switch\n"
    ".hidden cuguard_impl_fiber_switch\n"
    ".type cuguard_impl_fiber_switch,@function\n"
    "cuguard_impl_fiber_switch:\n" // (void** save_sp = %rdi, void* load_sp = %rsi)
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n"
    "  fldcw 4(%rsp)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size cuguard_impl_fiber_switch, .-cuguard_impl_fiber_switch\n"
    ".popsection\n");
/// Saves the calling fiber's registers on its stack and its stack pointer in `*save_sp`, then
/// resumes the fiber whose stack pointer is `load_sp`.
extern "C" void cuguard_impl_fiber_switch(void** save_sp, void* load_sp);
#else
#  define CUGUARD_IMPL_FIBER_SWITCH 0
#endif

// A thread that has not waited yet runs as a plain call from the scheduler, on the scheduler's
// stack: a block whose threads never wait runs them as a loop, with no switch. The first wait
// leaves that stack to the thread, and the scheduler goes on on a fresh one. With the own switch
// only, and not under AddressSanitizer (whose stack annotations assume one stack per fiber).
#if CUGUARD_IMPL_FIBER_SWITCH && !defined(__SANITIZE_ADDRESS__)
#  define CUGUARD_IMPL_DIRECT_THREADS 1
#else
#  define CUGUARD_IMPL_DIRECT_THREADS 0
#endif

#if defined(__SANITIZE_ADDRESS__)
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, std::size_t* size_old);
extern "C" void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
#endif

// The CUDA built-in variables, as CUDA names them: variables (not macros), so that a parameter
// named threadIdx shadows them as it would under nvcc and a debugger can print them. The runner
// sets them before it resumes a thread; they are thread_local because a block's threads run on
// one OS thread, and every OS thread may run a grid of its own. Kernel code must not assign them.
inline thread_local uint3 threadIdx{};
inline thread_local uint3 blockIdx{};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace emulation {
namespace detail {

/// The CUDA built-in variables of one thread.
struct thread_context {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};

/// Thrown out of run() when a kernel called __trap().
struct trapped {};

/// Where a thread waits at __syncthreads() (its caller's file, function and line).
using barrier_site = source_site;

/// The first divergent barrier of a grid: a __syncthreads() that a thread of the block waits at
/// while another thread of the block returned from the kernel without reaching it, or waits at
/// another __syncthreads(). A GPU would match the two (or let the block pass once the others
/// exited) or hang; emulation lets the waiting threads go on and reports it.
struct barrier_problem {
  bool found;
  uint3 block;
  uint3 waiting;          ///< a thread that waits at the barrier
  barrier_site site;      ///< the barrier it waits at
  uint3 other;            ///< a thread that returned, or waits elsewhere
  barrier_site other_site;///< where it waits (line 0: it returned)
};

/// The order in which the threads of a block run between two barriers
/// (CUGUARD_EMULATION_SCHEDULE): forward (thread order, the default), reverse, or a permutation
/// drawn anew at every barrier from a seed (random:<seed>), the same in every run. A kernel that
/// misses a __syncthreads() computes differently under two schedules.
struct schedule {
  enum class order { forward, reverse, random } kind = order::forward;
  std::uint64_t seed = 0;

  /// The schedule the environment asks for; throws std::invalid_argument for a value it cannot read.
  static schedule from_text(const char* s) {
    schedule out;
    if (s == nullptr || *s == '\0' || std::strcmp(s, "forward") == 0) return out;
    if (std::strcmp(s, "reverse") == 0) {
      out.kind = order::reverse;
      return out;
    }
    if (std::strncmp(s, "random:", 7) == 0 && s[7] != '\0') {
      char* end = nullptr;
      out.seed = std::strtoull(s + 7, &end, 10);
      if (end != nullptr && *end == '\0') {
        out.kind = order::random;
        return out;
      }
    }
    throw std::invalid_argument(std::string("cuguard emulation: CUGUARD_EMULATION_SCHEDULE is '") + s +
                                "'; expected forward, reverse or random:<seed> (a decimal number)");
  }
};

/// The schedule of every grid this process runs: CUGUARD_EMULATION_SCHEDULE's, read at the
/// first launch (tests assign it).
inline schedule& active_schedule() {
  static schedule s = schedule::from_text(
      ::cuguard::detail::platform::environment(::cuguard::detail::platform::setting::emulation_schedule));
  return s;
}

/// What the scheduler found in a grid besides violations: the first divergent barrier and the
/// first race on shared memory (each with found false: none).
struct grid_findings {
  barrier_problem divergent;
  shared_race race;
};

/// Runs the blocks of a grid one after another (x fastest, then y, then z, or those a block
/// source hands out); inside a block the threads run round-robin in the order of the schedule
/// (thread order unless CUGUARD_EMULATION_SCHEDULE says otherwise), each until it finishes or
/// waits at __syncthreads() or a warp-wide operation: a plain call until its first wait, a fiber
/// from then on (CUGUARD_IMPL_DIRECT_THREADS; otherwise a fiber from the start). A barrier opens
/// when every thread of the block (or warp) that has not exited waits at it. A block runs on
/// one OS thread, so `__shared__` (thread_local) storage is shared by the block.
class grid_runner {
 public:
  using body_fn = void (*)(void*);

  grid_runner() = default;
  grid_runner(const grid_runner&) = delete;
  grid_runner& operator=(const grid_runner&) = delete;
  ~grid_runner() {
    if (stacks_ != nullptr) ::munmap(stacks_, stacks_bytes_);
  }

  /// Stack of each emulated thread (bytes); CUGUARD_EMULATION_STACK_KB in the environment overrides.
  static std::size_t stack_size() {
    static const std::size_t size = [] {
      std::size_t kb = 256;
      using ::cuguard::detail::platform::environment, ::cuguard::detail::platform::setting;
      if (const char* s = environment(setting::emulation_stack_kb)) kb = std::strtoul(s, nullptr, 10);
      return (kb < 64 ? 64 : kb) * 1024;
    }();
    return size;
  }

  /// Throws std::invalid_argument for a launch configuration that a GPU refuses.
  static void check_configuration(dim3 grid, dim3 block) {
    const std::size_t threads = std::size_t{block.x} * block.y * block.z;
    if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0)
      throw std::invalid_argument("cuguard emulation: invalid launch configuration (grid or block has no thread, or "
                                  "a block has more than 1024 threads)");
  }

  /// What a block source returns when it has no block left.
  static constexpr std::uint64_t no_block = ~std::uint64_t{0};

  /// Runs every block of the grid, in order.
  void run(dim3 grid, dim3 block, std::size_t dynamic_shared, body_fn body, void* arg) {
    const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
    std::uint64_t n = 0;
    run(grid, block, dynamic_shared, body, arg, [&] { return n < blocks ? n++ : no_block; });
  }

  /// Runs the blocks that `next()` hands out by number (x fastest, then y, then z: the order
  /// run() takes them in) until it returns no_block.
  template <class Next>
  void run(dim3 grid, dim3 block, std::size_t dynamic_shared, body_fn body, void* arg, Next&& next) {
    check_configuration(grid, block);
    schedule_ = active_schedule();
    const std::size_t threads = std::size_t{block.x} * block.y * block.z;
    reserve(threads);
    ++launch_count_;
    protect_runtime();
    races_.begin_grid(dynamic_shared_.data(), dynamic_shared_.size());
    dynamic_shared_.assign(dynamic_shared, 0);
    body_ = body;
    arg_ = arg;
    error_ = nullptr;
    problem_ = barrier_problem{};
    for (std::uint64_t b = next(); b != no_block; b = next()) {
      current_block_ = b;
      const std::uint64_t plane = std::uint64_t{grid.x} * grid.y;
      run_block(grid, block,
                uint3{static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b % plane / grid.x),
                      static_cast<unsigned>(b / plane)},
                threads);
    }
  }

  /// The number of the block that runs (or ran last).
  std::uint64_t current_block() const noexcept { return current_block_; }

  /// __syncthreads() at `site`
  void barrier(barrier_site site) {
    fibers_[current_].site = site;
    wait(state::at_barrier);
  }

  /// The grid's first divergent barrier (found false: none).
  const barrier_problem& problem() const noexcept { return problem_; }
  /// The grid's first race on shared memory (found false: none).
  const shared_race& race() const noexcept { return races_.first(); }

  /// __syncwarp(): waits for the lanes of this warp that have not exited.
  void warp_barrier() { wait(state::at_warp_barrier); }

  /// Exchanges `bits` across the warp: every lane deposits, all wait, each reads lane `src`.
  std::uint64_t exchange(std::uint64_t bits, unsigned src_lane) {
    const unsigned lane = current_ % 32, warp_base = current_ - lane;
    lanes_[current_] = bits;
    warp_barrier();
    const unsigned src = warp_base + (src_lane % 32);
    const std::uint64_t out = src < fibers_used_ && fibers_[src].st != state::done ? lanes_[src] : bits;
    warp_barrier();
    return out;
  }

  /// Ballot over the lanes of this warp that have not exited.
  unsigned ballot(bool predicate) {
    const unsigned lane = current_ % 32, warp_base = current_ - lane;
    lanes_[current_] = predicate ? 1 : 0;
    warp_barrier();
    unsigned mask = 0;
    for (unsigned l = 0; l < 32 && warp_base + l < fibers_used_; ++l)
      if (fibers_[warp_base + l].st != state::done && lanes_[warp_base + l] != 0) mask |= 1u << l;
    warp_barrier();
    return mask;
  }

  /// Lanes of this warp that have not exited.
  unsigned active_mask() const {
    const unsigned warp_base = current_ - current_ % 32;
    unsigned mask = 0;
    for (unsigned l = 0; l < 32 && warp_base + l < fibers_used_; ++l)
      if (fibers_[warp_base + l].st != state::done) mask |= 1u << l;
    return mask;
  }

  /// PTX `exit`: ends the calling thread (its stack is dropped, as a GPU drops it); barriers and
  /// warp-wide operations no longer wait for it.
  [[noreturn]] void exit_thread() {
#if CUGUARD_IMPL_DIRECT_THREADS
    if (fibers_[current_].on_scheduler_stack) {
      // Its frames and the scheduler's below them are dropped: a scheduler on a fresh stack goes on.
      fibers_[current_].st = state::done;
      leave();
      const int dropped = scheduler_stack_;
      void* next = new_scheduler();
      free_stacks_.push_back(dropped); // taken again only once this stack is left
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

  unsigned char* dynamic_shared() noexcept { return dynamic_shared_.data(); }
  std::size_t dynamic_shared_bytes() const noexcept { return dynamic_shared_.size(); }

  /// True if `p` points into the running block's shared memory: its dynamic shared memory, or
  /// the thread_local storage of this OS thread, where `__shared__` variables live.
  bool is_shared(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (holds_shared(a, 1)) return true;
    if (tls_launch_ == launch_count_) return false;
    find_thread_storage(); // once a launch: a module loaded since (its storage is made at its first use)
    return in_thread_storage(a, 1);
  }

  /// The race detector of the running block.
  race_detector& races() noexcept { return races_; }

  /// An access of `count` elements of `bytes` each from `p` through a view of shared memory, by
  /// the running thread: for the race detector, which follows only elements that lie in shared
  /// memory whole. `describe` as race_detector::access takes it.
  template <class Describe>
  void note_shared(void* p, std::size_t bytes, int count, const Describe& describe) {
    races_.access(p, bytes, count, describe, [this](std::uintptr_t a, std::size_t n) { return holds_shared(a, n); });
  }

 private:
  enum class state { ready, at_barrier, at_warp_barrier, done };
  struct fiber {
#if CUGUARD_IMPL_FIBER_SWITCH
    void* sp; ///< its stack pointer while it is not running
#else
    ucontext_t ctx;
#endif
    state st;
    int stack; ///< the stack it runs on (-1: it has not started)
    bool on_scheduler_stack; ///< it runs as a call from the scheduler, which has not left its stack
    thread_context ids;
    ::cuguard::detail::platform::emulated_thread seam; ///< ids, as device code sees them (the device seam)
    void* fake_stack;
    barrier_site site; ///< the __syncthreads() it waits at (state::at_barrier)
  };

  void reserve(std::size_t threads) {
    if (fibers_.size() < threads) {
      fibers_.resize(threads);
      lanes_.resize(threads);
      order_.resize(threads);
    }
    // A stack for every thread that waits, and one for the scheduler (direct threads).
    const std::size_t stacks = threads + 1;
    const std::size_t slot = stack_size() + page_size(); // one guard page below each stack
    if (stacks_capacity_ >= stacks) return;
    if (stacks_ != nullptr) ::munmap(stacks_, stacks_bytes_);
    stacks_bytes_ = slot * stacks;
    void* p = ::mmap(nullptr, stacks_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      stacks_ = nullptr;
      stacks_capacity_ = 0;
      throw std::bad_alloc();
    }
    stacks_ = static_cast<char*>(p);
    for (std::size_t t = 0; t < stacks; ++t) ::mprotect(stacks_ + t * slot, page_size(), PROT_NONE);
    stacks_capacity_ = stacks;
  }

  static std::size_t page_size() {
    static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return page;
  }

  char* stack_of(std::size_t t) const { return stacks_ + t * (stack_size() + page_size()) + page_size(); }

  static void entry();

#if CUGUARD_IMPL_FIBER_SWITCH
  // A new fiber's stack, as cuguard_impl_fiber_switch leaves one: from the stack pointer up, the
  // control words (MXCSR 0x1F80, x87 0x037F: the defaults), six callee-saved registers, and the
  // address its `ret` jumps to (entry, which never returns: the word above it stands in for
  // entry's return address and keeps the stack aligned as a call would).
  static void make_context(fiber& f, char* stack, std::size_t size) { f.sp = new_context(stack, size, &grid_runner::entry); }
  static void* new_context(char* stack, std::size_t size, void (*start)()) {
#  if defined(__SANITIZE_ADDRESS__)
    // The stack's last fiber may have ended inside frames whose redzones are still poisoned.
    __asan_unpoison_memory_region(stack, size);
#  endif
    auto top = (reinterpret_cast<std::uintptr_t>(stack) + size) & ~std::uintptr_t{15};
    auto* p = reinterpret_cast<std::uint64_t*>(top);
    *--p = 0;
    *--p = reinterpret_cast<std::uint64_t>(start);
    for (int r = 0; r < 6; ++r) *--p = 0;
    *--p = 0x1F80ull | 0x037Full << 32;
    return p;
  }
#else
  // Out of line: getcontext returns twice, which would clobber the caller's variables.
  __attribute__((noinline)) static void make_context(fiber& f, char* stack, std::size_t size) {
    ::getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = stack;
    f.ctx.uc_stack.ss_size = size;
    f.ctx.uc_link = nullptr;
    ::makecontext(&f.ctx, &grid_runner::entry, 0);
  }
#endif

  // A thread gets a stack when it first runs: the stack of a thread that finished if there is
  // one (the last one: its memory is in the cache), so that a block whose threads run to the end
  // without waiting runs every thread on one stack.
  void prepare(dim3 grid, dim3 block, uint3 block_idx, std::size_t threads) {
    fibers_used_ = static_cast<unsigned>(threads);
    free_stacks_.clear();
    stacks_started_ = 0;
    for (unsigned t = 0; t < threads; ++t) {
      fiber& f = fibers_[t];
      f.st = state::ready;
      f.stack = -1;
      f.on_scheduler_stack = false;
      f.fake_stack = nullptr;
      f.ids = thread_context{uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)}, block_idx, block, grid};
      f.seam = {{f.ids.block_idx.x, f.ids.block_idx.y, f.ids.block_idx.z},
                {f.ids.thread_idx.x, f.ids.thread_idx.y, f.ids.thread_idx.z},
                {grid.x, grid.y, grid.z},
                {block.x, block.y, block.z},
                seam_engine(),
                this};
    }
  }

  int take_stack() {
    if (free_stacks_.empty()) return stacks_started_++;
    const int s = free_stacks_.back();
    free_stacks_.pop_back();
    return s;
  }

  void start(fiber& f) {
    f.stack = take_stack();
    make_context(f, stack_of(static_cast<std::size_t>(f.stack)), stack_size());
  }

  // The running thread is done: its stack is free once the scheduler switched away from it.
  void finish_current() {
    fiber& f = fibers_[current_];
    f.st = state::done;
    free_stacks_.push_back(f.stack);
  }

  void run_block(dim3 grid, dim3 block, uint3 block_idx, std::size_t threads) {
    prepare(grid, block, block_idx, threads);
    races_.begin_block(block_idx, static_cast<unsigned>(threads));
    trapped_ = false;
    returned_ = -1;
    draw_ = schedule_.seed ^ (0x9e3779b97f4a7c15ull *
                              (1 + block_idx.x + std::uint64_t{grid.x} * (block_idx.y + std::uint64_t{grid.y} * block_idx.z)));
    threads_ = static_cast<unsigned>(threads);
    order_threads(threads, draw_);
    pass_at_ = 0;
    pass_ran_ = false;
#if CUGUARD_IMPL_DIRECT_THREADS
    void* first = new_scheduler();
    cuguard_impl_fiber_switch(&os_sp_, first); // back when the block is done, or stopped
#else
    run_passes();
#endif
    if (trapped_) throw trapped{};
    if (error_) std::rethrow_exception(error_);
  }

  // The block's passes: each runs, in the schedule's order, every thread that is ready, until
  // one waits or returns; a pass in which none was ready opens the barriers. Its state is the
  // runner's (pass_at_, pass_ran_, draw_), so that a scheduler on a fresh stack goes on where the
  // last one left off. Returns when every thread finished, or one trapped or threw.
  void run_passes() {
    for (;;) {
      if (trapped_ || error_) return;
      if (pass_at_ == threads_) {
        if (!pass_ran_) {
          bool released = false;
          try {
            released = release_barriers(threads_);
          } catch (...) {
            error_ = std::current_exception();
            return;
          }
          if (!released) return; // every thread finished
        }
        pass_ran_ = false;
        order_threads(threads_, draw_);
        pass_at_ = 0;
        continue;
      }
      const unsigned t = order_[pass_at_++];
      if (fibers_[t].st != state::ready) continue;
      pass_ran_ = true;
#if CUGUARD_IMPL_DIRECT_THREADS
      if (fibers_[t].stack < 0) {
        run_direct(t);
        continue;
      }
#endif
      resume(t);
    }
  }

#if CUGUARD_IMPL_DIRECT_THREADS
  // A scheduler on a fresh stack (scheduler_stack_): its context, to switch to.
  void* new_scheduler() {
    scheduler_stack_ = take_stack();
    return new_context(stack_of(static_cast<std::size_t>(scheduler_stack_)), stack_size(), &grid_runner::scheduler_entry);
  }
  static void scheduler_entry();

  // Thread t, not started, as a call on the scheduler's stack.
  __attribute__((noinline)) void run_direct(unsigned t) {
    fiber& f = fibers_[t];
    f.stack = scheduler_stack_;
    f.on_scheduler_stack = true;
    enter(t);
    try {
      body_(arg_);
    } catch (...) {
      error_ = std::current_exception();
    }
    returned(t);
    f.st = state::done;
    leave();
    if (f.on_scheduler_stack) {
      // As every fiber starts from the default floating-point modes, so does every direct
      // thread: a thread that changed the rounding or flush-to-zero mode passes it on to none.
      unsigned mxcsr;
      unsigned short x87;
      asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(x87));
      if ((mxcsr & 0xFFC0u) != 0x1F80u || x87 != 0x037F) {
        mxcsr = 0x1F80u | (mxcsr & 0x3Fu);
        x87 = 0x037F;
        asm volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(mxcsr), "m"(x87));
      }
    } else {
      // The scheduler left this stack when t waited, and resumed t since: the stack is free
      // once this thread switched to the scheduler for the last time.
      free_stacks_.push_back(f.stack);
      void* discard = nullptr;
      cuguard_impl_fiber_switch(&discard, main_sp_);
      std::abort(); // unreachable
    }
  }

  // The running thread waits and runs on the scheduler's stack: the stack becomes the thread's,
  // and a scheduler on a fresh stack goes on. Returns when the thread is resumed.
  __attribute__((noinline)) void leave_scheduler_stack(fiber& f) {
    f.on_scheduler_stack = false;
    leave();
    void* next = new_scheduler();
    cuguard_impl_fiber_switch(&f.sp, next);
  }
#endif

  // The running thread t stops running: what it wrote is known (the race detector), and the
  // scheduler runs outside any thread.
  inline void leave();
  // Thread t returned from the kernel: the lowest such thread since the barrier, whatever the schedule.
  void returned(unsigned t) {
    if (returned_ < 0 || t < static_cast<unsigned>(returned_)) returned_ = static_cast<int>(t);
  }
  inline void enter(unsigned t);
  /// What device code asks of this engine through the device seam (defined below the class).
  static inline const ::cuguard::detail::platform::emulated_engine* seam_engine() noexcept;

  // The order of the next pass over the block's threads (order_), as the schedule says.
  void order_threads(std::size_t threads, std::uint64_t& draw) {
    for (unsigned i = 0; i < threads; ++i)
      order_[i] = schedule_.kind == schedule::order::reverse ? static_cast<unsigned>(threads) - 1 - i : i;
    if (schedule_.kind != schedule::order::random) return;
    for (unsigned i = static_cast<unsigned>(threads); i > 1; --i) { // Fisher-Yates, splitmix64 draws
      std::uint64_t z = (draw += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      const unsigned j = static_cast<unsigned>(z % i);
      const unsigned tmp = order_[i - 1];
      order_[i - 1] = order_[j];
      order_[j] = tmp;
    }
  }

  // Opens a block barrier when every live thread waits at it, and each warp barrier whose live
  // lanes all wait at it. False when nothing was waiting.
  bool release_barriers(std::size_t threads) {
    bool live = false, all_at_barrier = true, released = false;
    for (unsigned t = 0; t < threads; ++t) {
      if (fibers_[t].st == state::done) continue;
      live = true;
      if (fibers_[t].st != state::at_barrier) all_at_barrier = false;
    }
    if (!live) return false;
    if (all_at_barrier) {
      note_divergence(threads);
      races_.block_barrier();
      returned_ = -1;
      for (unsigned t = 0; t < threads; ++t)
        if (fibers_[t].st == state::at_barrier) fibers_[t].st = state::ready;
      return true;
    }
    for (unsigned base = 0; base < threads; base += 32) {
      bool any = false, all = true;
      for (unsigned t = base; t < base + 32 && t < threads; ++t) {
        if (fibers_[t].st == state::done) continue;
        any = true;
        if (fibers_[t].st != state::at_warp_barrier) all = false;
      }
      if (!any || !all) continue;
      for (unsigned t = base; t < base + 32 && t < threads; ++t)
        if (fibers_[t].st == state::at_warp_barrier) fibers_[t].st = state::ready;
      races_.warp_barrier(base / 32);
      released = true;
    }
    if (!released)
      throw std::logic_error("cuguard emulation: deadlock: threads of one block wait at different barriers "
                             "(__syncthreads() and a warp-wide operation), which a GPU would not complete either");
    return true;
  }

  // Before a block barrier opens: did every thread that has not stopped reach this one?
  void note_divergence(std::size_t threads) {
    if (problem_.found) return;
    unsigned first = 0;
    while (fibers_[first].st != state::at_barrier) ++first;
    const barrier_site& site = fibers_[first].site;
    int other = returned_;
    for (unsigned t = first + 1; other < 0 && t < threads; ++t)
      if (fibers_[t].st == state::at_barrier && (fibers_[t].site.line != site.line || fibers_[t].site.file != site.file))
        other = static_cast<int>(t);
    if (other < 0) return;
    problem_.found = true;
    problem_.block = fibers_[first].ids.block_idx;
    problem_.waiting = fibers_[first].ids.thread_idx;
    problem_.site = site;
    const fiber& o = fibers_[static_cast<std::size_t>(other)];
    problem_.other = o.ids.thread_idx;
    problem_.other_site = other == returned_ ? barrier_site{"", "", 0} : o.site;
  }

  void wait(state s) {
    fiber& f = fibers_[current_];
    f.st = s;
#if CUGUARD_IMPL_DIRECT_THREADS
    if (f.on_scheduler_stack) return leave_scheduler_stack(f);
#endif
    switch_to_main(true);
  }

  // The thread_local storage of this OS thread, module by module (tls_), as of grid tls_launch_.
  void find_thread_storage() {
    tls_.clear();
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t size, void* out) -> int {
          if (size < offsetof(dl_phdr_info, dlpi_tls_data) + sizeof info->dlpi_tls_data || info->dlpi_tls_data == nullptr)
            return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i)
            if (info->dlpi_phdr[i].p_type == PT_TLS)
              static_cast<std::vector<std::pair<std::uintptr_t, std::size_t>>*>(out)->emplace_back(
                  reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data), info->dlpi_phdr[i].p_memsz);
          return 0;
        },
        &tls_);
    tls_launch_ = launch_count_;
  }
  // True if [a, a + n) lies in the dynamic shared memory or in the thread_local storage found so far.
  bool holds_shared(std::uintptr_t a, std::size_t n) const noexcept {
    const auto d = reinterpret_cast<std::uintptr_t>(dynamic_shared_.data());
    const std::size_t size = dynamic_shared_.size();
    return (a >= d && n <= size && a - d <= size - n) || in_thread_storage(a, n);
  }
  // True if [a, a + n) lies in the thread_local storage of one module.
  bool in_thread_storage(std::uintptr_t a, std::size_t n) const noexcept {
    for (const auto& r : tls_)
      if (a >= r.first && n <= r.second && a - r.first <= r.second - n) return true;
    return false;
  }
  void protect_runtime(); // the scheduler's thread_local state is no kernel's shared memory

  void resume(unsigned t); // out of line: swapcontext returns twice, which would clobber the caller's registers
  void switch_to_main(bool will_resume);

  std::vector<fiber> fibers_;
  std::vector<std::uint64_t> lanes_;
  std::vector<unsigned> order_; ///< the threads of the block in the order of this pass
  std::vector<int> free_stacks_; ///< stacks of threads that finished, the last one last
  int stacks_started_ = 0;       ///< stacks handed out in this block
  schedule schedule_{};
  std::vector<unsigned char> dynamic_shared_;
  char* stacks_ = nullptr;
  std::size_t stacks_bytes_ = 0;
  std::size_t stacks_capacity_ = 0;
  unsigned fibers_used_ = 0;
  unsigned current_ = 0;
  bool trapped_ = false;
#if CUGUARD_IMPL_FIBER_SWITCH
  void* main_sp_ = nullptr; ///< the scheduler's stack pointer while a fiber runs
#else
  ucontext_t main_{};
#endif
  const void* main_stack_bottom_ = nullptr;
  std::size_t main_stack_size_ = 0;
  void* main_fake_stack_ = nullptr;
  body_fn body_ = nullptr;
  void* arg_ = nullptr;
  std::exception_ptr error_;
  int returned_ = -1; ///< a thread that returned from the kernel since the block's last barrier (-1: none)
  unsigned threads_ = 0;     ///< threads of the running block
  unsigned pass_at_ = 0;     ///< the next position of this pass in order_
  bool pass_ran_ = false;    ///< a thread ran in this pass
  std::uint64_t draw_ = 0;   ///< the random schedule's state
  int scheduler_stack_ = -1; ///< the stack the scheduler runs on (direct threads)
  void* os_sp_ = nullptr;    ///< run_block's stack pointer while the block runs (direct threads)
  barrier_problem problem_{};
  race_detector races_;
  std::vector<std::pair<std::uintptr_t, std::size_t>> tls_; ///< thread_local storage: address, bytes
  std::uint64_t current_block_ = 0;
  std::uint64_t launch_count_ = 0; ///< grids this runner began
  std::uint64_t tls_launch_ = 0;   ///< the grid tls_ was found in (0: never)
  bool protected_ = false;
};

/// The runner of the grid this OS thread is running, and the thread it is running.
inline thread_local grid_runner* current_runner = nullptr;
inline thread_local const thread_context* current_thread = nullptr;

/// What device code asks of the engine through the device seam (detail/platform/device.hpp).
struct seam_functions {
  static void exit_thread(void* runner) { static_cast<grid_runner*>(runner)->exit_thread(); }
  static void trap(void* runner) { static_cast<grid_runner*>(runner)->trap(); }
  static bool is_shared(void* runner, const void* p) { return static_cast<grid_runner*>(runner)->is_shared(p); }
  static void note_shared(void* runner, void* p, std::size_t bytes, int count,
                          ::cuguard::detail::platform::describe_access describe, const void* context) {
    static_cast<grid_runner*>(runner)->note_shared(p, bytes, count,
                                                   [&](shared_access& a) { describe(a, context); });
  }
};
inline const ::cuguard::detail::platform::emulated_engine* grid_runner::seam_engine() noexcept {
  static constexpr ::cuguard::detail::platform::emulated_engine engine{
      &seam_functions::exit_thread, &seam_functions::trap, &seam_functions::is_shared, &seam_functions::note_shared};
  return &engine;
}

inline void grid_runner::enter(unsigned t) {
  current_ = t;
  const thread_context& ids = fibers_[t].ids;
  current_thread = &ids;
  ::cuguard::detail::platform::running = &fibers_[t].seam;
  ::threadIdx = ids.thread_idx;
  ::blockIdx = ids.block_idx;
  ::blockDim = ids.block_dim;
  ::gridDim = ids.grid_dim;
}

inline void grid_runner::leave() {
  races_.end_segment(current_);
  current_thread = nullptr;
  ::cuguard::detail::platform::running = nullptr;
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
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(&main_fake_stack_, stack_of(static_cast<std::size_t>(fibers_[t].stack)), stack_size());
#endif
#if CUGUARD_IMPL_FIBER_SWITCH
  cuguard_impl_fiber_switch(&main_sp_, fibers_[t].sp);
#else
  ::swapcontext(&main_, &fibers_[t].ctx);
#endif
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(main_fake_stack_, nullptr, nullptr);
#endif
  current_thread = nullptr;
  ::cuguard::detail::platform::running = nullptr;
}

inline void grid_runner::protect_runtime() {
  if (protected_) return;
  protected_ = true;
  races_.protect(this, sizeof *this);
  races_.protect(&::threadIdx, sizeof ::threadIdx);
  races_.protect(&::blockIdx, sizeof ::blockIdx);
  races_.protect(&::blockDim, sizeof ::blockDim);
  races_.protect(&::gridDim, sizeof ::gridDim);
  races_.protect(&current_runner, sizeof current_runner);
  races_.protect(&current_thread, sizeof current_thread);
  races_.protect(&::cuguard::detail::platform::running, sizeof ::cuguard::detail::platform::running);
}

inline void grid_runner::switch_to_main(bool will_resume) {
  races_.end_segment(current_);
  fiber& f = fibers_[current_];
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(will_resume ? &f.fake_stack : nullptr, main_stack_bottom_, main_stack_size_);
#else
  (void)will_resume;
#endif
#if CUGUARD_IMPL_FIBER_SWITCH
  cuguard_impl_fiber_switch(&f.sp, main_sp_);
#else
  ::swapcontext(&f.ctx, &main_);
#endif
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(f.fake_stack, &main_stack_bottom_, &main_stack_size_);
#endif
}

inline void grid_runner::entry() {
  grid_runner* self = current_runner;
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(nullptr, &self->main_stack_bottom_, &self->main_stack_size_);
#endif
  try {
    self->body_(self->arg_);
  } catch (...) {
    self->error_ = std::current_exception();
  }
  // Returned from the kernel (a thread stopped at a violation ends in exit_thread instead); the
  // lowest such thread, whatever the schedule.
  self->returned(self->current_);
  self->finish_current();
  self->switch_to_main(false);
}

/// The runner of the calling OS thread, current while the scope lasts (a kernel that launches a
/// kernel is refused: emulation has no dynamic parallelism).
struct runner_scope {
  grid_runner& runner;
  static grid_runner& of_this_thread() {
    static thread_local grid_runner r;
    return r;
  }
  runner_scope() : runner(of_this_thread()) {
    if (current_runner != nullptr)
      throw std::logic_error("cuguard emulation: a kernel cannot launch another kernel (no dynamic parallelism)");
    current_runner = &runner;
  }
  runner_scope(const runner_scope&) = delete;
  runner_scope& operator=(const runner_scope&) = delete;
  ~runner_scope() { current_runner = nullptr; }
};

/// Runs `body(arg)` as every thread of the grid; the calling thread's runner is reused. Returns
/// the grid's first divergent barrier and first race on shared memory.
inline grid_findings run_grid(dim3 grid, dim3 block, std::size_t dynamic_shared, grid_runner::body_fn body,
                                void* arg) {
  runner_scope scope;
  scope.runner.run(grid, block, dynamic_shared, body, arg);
  return grid_findings{scope.runner.problem(), scope.runner.race()};
}

} // namespace detail
} // namespace emulation
CUGUARD_IMPL_END_NAMESPACE
