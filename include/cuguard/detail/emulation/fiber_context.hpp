// SPDX-License-Identifier: Apache-2.0
// Fiber contexts: a stack and the registers saved on it, made on a stack of the engine's and
// switched to and from (x86-64: the engine's own dozen-instruction switch; elsewhere ucontext).
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>
#include <cstdint>

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
    "  movl (%rsp), %eax\n"  // the control words now: loaded again only where the fiber's differ
    "  movzwl 4(%rsp), %edx\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  xorl (%rsp), %eax\n"   // MXCSR's modes and masks (its exception flags are no thread's own)
    "  testl $0xFFC0, %eax\n"
    "  je 1f\n"
    "  ldmxcsr (%rsp)\n"
    "1:\n"
    "  cmpw 4(%rsp), %dx\n"
    "  je 2f\n"
    "  fldcw 4(%rsp)\n"
    "2:\n"
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
// leaves that stack to the thread; the threads of the pass after it start on fresh stacks, each
// switched to by the one before it, and a scheduler on a fresh stack goes on at the pass's end.
// With the own switch only, and not under AddressSanitizer (whose stack annotations assume one
// stack per fiber).
#if CUGUARD_IMPL_FIBER_SWITCH && !CUGUARD_IMPL_ASAN_RUNTIME
#  define CUGUARD_IMPL_DIRECT_THREADS 1
#else
#  define CUGUARD_IMPL_DIRECT_THREADS 0
#endif

#if CUGUARD_IMPL_ASAN_RUNTIME
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, std::size_t* size_old);
extern "C" void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
#endif

#if !CUGUARD_IMPL_FIBER_SWITCH
#  include <ucontext.h>
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// What a fiber that is not running keeps of its execution: its stack pointer (the registers lie
/// on its stack) or, with ucontext, the saved context.
struct fiber_context {
#if CUGUARD_IMPL_FIBER_SWITCH
  void* sp = nullptr;
#else
  ucontext_t ctx{};
#endif
};

/// AddressSanitizer's part of a switch (nothing without it): the running fiber leaves its stack
/// for the one at [bottom, bottom + size) (`fake_stack_save`: where to keep its fake stack, null
/// for a fiber that never runs again) ...
inline void asan_leaving(void** fake_stack_save, const void* bottom, std::size_t size) noexcept {
#if CUGUARD_IMPL_ASAN_RUNTIME
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}
/// ... and has arrived on it (`fake_stack`: what leaving kept; the stack left is written to
/// `bottom_old` and `size_old` where not null).
inline void asan_arrived(void* fake_stack, const void** bottom_old, std::size_t* size_old) noexcept {
#if CUGUARD_IMPL_ASAN_RUNTIME
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
  (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}

#if CUGUARD_IMPL_FIBER_SWITCH
/// A new context on [stack, stack + size) that starts in `start` (which never returns), as
/// cuguard_impl_fiber_switch leaves one: from the stack pointer up, the control words (MXCSR
/// 0x1F80, x87 0x037F: the defaults), six callee-saved registers, and the address its `ret`
/// jumps to (the word above it stands in for start's return address and keeps the stack aligned
/// as a call would).
inline void* new_context(char* stack, std::size_t size, void (*start)()) {
#  if CUGUARD_IMPL_ASAN_RUNTIME
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

/// Sets the floating-point control words to the defaults a new context starts with (keeping the
/// exception flags): rounding to nearest, no flush to zero, every exception masked.
/// Only MXCSR is read: what usually changes a mode (fesetround, the flush-to-zero macros) writes
/// MXCSR, and then both are reset; a change of the x87 control word alone (fldcw, or fesetenv of
/// an environment whose MXCSR part is the default) is not seen (fnstcw and its compare were a
/// seventh of a direct thread's bookkeeping).
inline void reset_float_modes() noexcept {
  unsigned mxcsr;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  if ((mxcsr & 0xFFC0u) != 0x1F80u) {
    mxcsr = 0x1F80u | (mxcsr & 0x3Fu);
    const unsigned short x87 = 0x037F;
    asm volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(mxcsr), "m"(x87));
  }
}

/// True where the SSE unit does not round to nearest, or flushes denormal results or operands
/// to zero, told by arithmetic: one packed add whose lanes come out otherwise in each other mode
/// (lane 0 rounds up to nearest, lane 1 down: any directed rounding changes one; lane 2 adds a
/// denormal operand, lane 3 makes a denormal result).
inline bool float_modes_changed_by_sum() noexcept {
  using v4sf = float __attribute__((vector_size(16)));
  using v2du = std::uint64_t __attribute__((vector_size(16)));
  v4sf sum = {1.0f, 1.0f, 0x1p-140f, 0x1.8p-126f};
  const v4sf addend = {0x1.8p-24f, 0x1p-25f, 0.0f, -0x1p-126f};
  asm volatile("addps %1, %0" : "+x"(sum) : "xm"(addend)); // volatile: in order with the kernel's calls
  const v4sf expected = {0x1.000002p0f, 1.0f, 0x1p-140f, 0x1p-127f};
  // Compared as bits: a float compare would itself treat the denormals as zero under DAZ.
  const v2du differ = reinterpret_cast<v2du>(sum) ^ reinterpret_cast<v2du>(expected);
  return (differ[0] | differ[1]) != 0;
}

/// True where the processor is AMD's. Which way of telling the modes costs less depends on the
/// maker: reading MXCSR (stmxcsr) costs about 9 ns on AMD Zen 1 against 2 ns for the sum, while on
/// Intel's the sum's denormals take microcode assists (about 40 ns) and stmxcsr 1.5 ns.
inline bool amd_processor() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  asm("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0u), "c"(0u));
  return ebx == 0x68747541u && edx == 0x69746E65u && ecx == 0x444D4163u; // "AuthenticAMD"
}
/// Set once at start-up (before, false: MXCSR is read, which is right everywhere); the tests set
/// it to try both ways on one processor.
inline bool float_modes_by_sum = amd_processor();

/// The same told by MXCSR's mode bits (and its exception masks, which only MXCSR tells: on AMD's
/// processors, where the sum is used, they are the defaults at each block's start, a fresh
/// scheduler).
inline bool float_modes_changed_in_mxcsr() noexcept {
  unsigned mxcsr;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  return (mxcsr & 0xFFC0u) != 0x1F80u; // flush to zero, rounding, masks, denormals are zero
}

/// keep_default_float_modes by the sum, out of line: the loop that runs a block's threads stays
/// small enough for the host compiler to inline a kernel into it.
__attribute__((noinline)) inline void keep_default_float_modes_by_sum() noexcept {
  if (CUGUARD_IMPL_UNLIKELY(float_modes_changed_by_sum())) reset_float_modes();
}

/// A direct thread returned: the next one starts from the default rounding and denormal modes,
/// whatever it left, told by the sum on AMD's processors and by MXCSR elsewhere. The sum raises
/// the inexact and denormal flags (the threads of a block share the exception flags; the host
/// thread's are its own again after the grid: host_float_state), and would trap where a kernel
/// thread unmasked those exceptions (feenableexcept: not CUDA device code).
inline void keep_default_float_modes() noexcept {
  if (float_modes_by_sum) {
    keep_default_float_modes_by_sum();
  } else if (CUGUARD_IMPL_UNLIKELY(float_modes_changed_in_mxcsr())) {
    reset_float_modes();
  }
}

/// The calling OS thread's MXCSR, flags included, saved where an emulated grid starts and put back
/// where it ends (its fibers and schedulers keep no exception flags of their own).
class host_float_state {
 public:
  host_float_state() noexcept { asm volatile("stmxcsr %0" : "=m"(mxcsr_)); }
  ~host_float_state() {
    unsigned now;
    asm volatile("stmxcsr %0" : "=m"(now));
    if (now != mxcsr_) asm volatile("ldmxcsr %0" : : "m"(mxcsr_));
  }
  host_float_state(const host_float_state&) = delete;
  host_float_state& operator=(const host_float_state&) = delete;

 private:
  unsigned mxcsr_;
};

/// Makes `c` a fiber that runs `start` on [stack, stack + size).
inline void make_context(fiber_context& c, char* stack, std::size_t size, void (*start)()) {
  c.sp = new_context(stack, size, start);
}

/// Saves the running fiber in `from` and resumes `to`; returns when `from` is resumed.
inline void switch_context(fiber_context& from, const fiber_context& to) { cuguard_impl_fiber_switch(&from.sp, to.sp); }
#else
// Out of line: getcontext returns twice, which would clobber the caller's variables.
__attribute__((noinline)) inline void make_context(fiber_context& c, char* stack, std::size_t size, void (*start)()) {
  ::getcontext(&c.ctx);
  c.ctx.uc_stack.ss_sp = stack;
  c.ctx.uc_stack.ss_size = size;
  c.ctx.uc_link = nullptr;
  ::makecontext(&c.ctx, start, 0);
}

inline void switch_context(fiber_context& from, const fiber_context& to) { ::swapcontext(&from.ctx, &to.ctx); }

/// swapcontext keeps each context's floating-point environment: nothing to put back.
class host_float_state {};
#endif

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
