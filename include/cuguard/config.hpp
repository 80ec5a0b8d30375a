// SPDX-License-Identifier: Apache-2.0
// The only header that reads user macros: check mode, host violation policy, annotations, ABI namespace.
#pragma once

#include <cuguard/version.hpp> // IWYU pragma: export (the version macros come with the configuration)

// ---------------------------------------------------------------------------------------------
// CUGUARD_ENABLE_CHECKS: 1 turns every check on, 0 or undefined turns them off. Never derived
// from NDEBUG. Any other spelling (ON, true, empty) is an error, not a silent "off".
// ---------------------------------------------------------------------------------------------
#define CUGUARD_IMPL_CAT2(a, b) a##b
#define CUGUARD_IMPL_CAT(a, b) CUGUARD_IMPL_CAT2(a, b)
#define CUGUARD_IMPL_VALID_SWITCH_0 1
#define CUGUARD_IMPL_VALID_SWITCH_1 1

#if defined(CUGUARD_ENABLE_CHECKS)
#  if !CUGUARD_IMPL_CAT(CUGUARD_IMPL_VALID_SWITCH_, CUGUARD_ENABLE_CHECKS)
#    error "CUGUARD_ENABLE_CHECKS must be defined as 0 or 1 (for example -DCUGUARD_ENABLE_CHECKS=1, not =ON)"
#  endif
#  define CUGUARD_IMPL_CHECKS CUGUARD_ENABLE_CHECKS
#else
#  define CUGUARD_IMPL_CHECKS 0
#endif

// Host policy. By default a violation found in host code throws cuguard::violation_error, as
// check() does for one recorded in device code: inside a PyTorch extension or a test runner it is
// an exception, never a dead process. CUGUARD_ON_VIOLATION_ABORT: print the report to stderr and
// abort instead. CUGUARD_ON_VIOLATION_THROW is accepted and means the default.
#if defined(CUGUARD_ON_VIOLATION_ABORT) && defined(CUGUARD_ON_VIOLATION_THROW)
#  error "define at most one of CUGUARD_ON_VIOLATION_ABORT and CUGUARD_ON_VIOLATION_THROW"
#endif
#if defined(CUGUARD_ON_VIOLATION_ABORT)
#  define CUGUARD_IMPL_THROW 0
#else
#  define CUGUARD_IMPL_THROW 1
#endif

// Device policy: what a thread does after it recorded a violation in device code. Default: it
// stops (PTX `exit`); the other threads run on, the kernel finishes, the CUDA context stays
// usable, and check() reports. A stopped thread no longer counts at __syncthreads() or at a
// warp-synchronous intrinsic, so neither hangs; a lane that reads a stopped lane's value through
// a shuffle reads an undefined value. The count of violations is a lower bound (a thread counts
// its first only).
// CUGUARD_ON_DEVICE_VIOLATION_CONTINUE: the thread goes on; its bad access is redirected to a
// scratch element; every violation is counted. Slower: the compiler carries the choice between the
// element and the scratch as an address. For kernels whose threads wait for one another other
// than at __syncthreads() or a warp intrinsic (named barriers with a thread count, grid-wide
// sync, spin loops on a flag another thread sets).
// CUGUARD_ON_DEVICE_VIOLATION_TRAP: the kernel stops at once, the CUDA context is lost; the report
// is still read.
#if defined(CUGUARD_ON_DEVICE_VIOLATION_TRAP) && defined(CUGUARD_ON_DEVICE_VIOLATION_CONTINUE)
#  error "define at most one of CUGUARD_ON_DEVICE_VIOLATION_TRAP and CUGUARD_ON_DEVICE_VIOLATION_CONTINUE"
#endif
#if defined(CUGUARD_ON_DEVICE_VIOLATION_TRAP)
#  define CUGUARD_IMPL_DEVICE_TRAP 1
#else
#  define CUGUARD_IMPL_DEVICE_TRAP 0
#endif
#if defined(CUGUARD_ON_DEVICE_VIOLATION_CONTINUE)
#  define CUGUARD_IMPL_DEVICE_CONTINUE 1
#else
#  define CUGUARD_IMPL_DEVICE_CONTINUE 0
#endif

// CUGUARD_EMULATION: 1 builds native kernels with the host compiler and runs them on CPU threads.
#if defined(CUGUARD_EMULATION)
#  if !CUGUARD_IMPL_CAT(CUGUARD_IMPL_VALID_SWITCH_, CUGUARD_EMULATION)
#    error "CUGUARD_EMULATION must be defined as 0 or 1"
#  endif
#  define CUGUARD_IMPL_EMULATION CUGUARD_EMULATION
#else
#  define CUGUARD_IMPL_EMULATION 0
#endif
#if CUGUARD_IMPL_EMULATION && defined(__CUDACC__)
#  error "CUGUARD_EMULATION=1 is for host compilers: an nvcc build runs its kernels on the GPU"
#endif

// CUGUARD_LIFETIME_SLOTS: how many tracked allocations can be alive at once (host registry).
#if defined(CUGUARD_LIFETIME_SLOTS)
#  if !(CUGUARD_LIFETIME_SLOTS >= 2)
#    error "CUGUARD_LIFETIME_SLOTS must be an integer of at least 2 (for example -DCUGUARD_LIFETIME_SLOTS=65536)"
#  endif
#  define CUGUARD_IMPL_LIFETIME_SLOTS CUGUARD_LIFETIME_SLOTS
#else
#  define CUGUARD_IMPL_LIFETIME_SLOTS 4096
#endif

// ---------------------------------------------------------------------------------------------
// Host/device annotations. CUGUARD_HOST_DEVICE may be predefined by the user.
// ---------------------------------------------------------------------------------------------
#if !defined(CUGUARD_HOST_DEVICE)
#  if defined(__CUDACC__)
#    define CUGUARD_HOST_DEVICE __host__ __device__
#  else
#    define CUGUARD_HOST_DEVICE
#  endif
#endif
// Device code only (CUDA's atomics and intrinsics, which host code lacks); empty for a host compiler.
#if defined(__CUDACC__)
#  define CUGUARD_IMPL_DEVICE __device__
#else
#  define CUGUARD_IMPL_DEVICE
#endif

#if defined(__CUDACC__)
#  define CUGUARD_IMPL_FORCEINLINE __forceinline__
#  define CUGUARD_IMPL_NOINLINE __noinline__
#elif defined(__GNUC__)
#  define CUGUARD_IMPL_FORCEINLINE inline __attribute__((always_inline))
#  define CUGUARD_IMPL_NOINLINE __attribute__((noinline, cold))
#else
#  define CUGUARD_IMPL_FORCEINLINE inline
#  define CUGUARD_IMPL_NOINLINE
#endif

// Emulation: the function that runs a kernel as one thread (backend::launch_context::thread)
// inlines a kernel named at compile time and what it calls, as nvcc inlines device code; a block
// whose threads never wait runs it inlined in turn (grid_runner::in_order_start). Without it the
// host compiler leaves a checked kernel out of line (its cold paths count against its size) and
// calls it for every thread. Optimized builds alone (at -O0 a kernel stays a frame of its own in
// the debugger).
#if CUGUARD_IMPL_EMULATION && defined(__GNUC__) && defined(__OPTIMIZE__)
#  define CUGUARD_IMPL_FLATTEN __attribute__((flatten))
#else
#  define CUGUARD_IMPL_FLATTEN
#endif

// Every integer type, and the arithmetic types that are not integers. Overload sets whose members
// take a cuda::std::source_location default argument list these instead of constraining a
// template with enable_if: nvcc's device pass evaluates such a default argument at the
// declaration of an enable_if-constrained template of the set (the library's line, not the
// caller's). tests/static/lines.cu checks every one.
#define CUGUARD_IMPL_INTEGER_TYPES(X)                                                                  \
  X(char) X(signed char) X(unsigned char) X(wchar_t) X(char16_t) X(char32_t) X(short) X(unsigned short) \
  X(int) X(unsigned int) X(long) X(unsigned long) X(long long) X(unsigned long long)
#define CUGUARD_IMPL_NON_INTEGER_ARITHMETIC_TYPES(X) X(bool) X(float) X(double) X(long double)

// Lets a __host__ __device__ template call what its arguments provide (host-only callables
// included) without nvcc's execution-space diagnostics.
#if defined(__CUDACC__)
#  define CUGUARD_IMPL_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#  define CUGUARD_IMPL_EXEC_CHECK_DISABLE
#endif

#if defined(__GNUC__) || defined(__clang__) || defined(__CUDACC__)
#  define CUGUARD_IMPL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define CUGUARD_IMPL_UNLIKELY(x) (x)
#endif

// True in the device compilation pass of nvcc only.
#if defined(__CUDA_ARCH__)
#  define CUGUARD_IMPL_DEVICE_PASS 1
#else
#  define CUGUARD_IMPL_DEVICE_PASS 0
#endif

// The cold side of a check (detail::fail_access and friends): inlined into device code that stops
// the thread or continues, where its few stores cost fewer registers than a call (an out-of-line
// cold path, with the view by value or by reference, took more: bench/static/user_kernels.py); out of
// line everywhere else.
#if CUGUARD_IMPL_DEVICE_PASS && !CUGUARD_IMPL_DEVICE_TRAP
#  define CUGUARD_IMPL_COLD CUGUARD_IMPL_FORCEINLINE
#else
#  define CUGUARD_IMPL_COLD inline CUGUARD_IMPL_NOINLINE
#endif

// On the cold side of a check that never returns to its caller: host code throws or aborts,
// device code stops the thread or traps. Not under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE.
#if CUGUARD_IMPL_DEVICE_CONTINUE
#  define CUGUARD_IMPL_FAIL_NORETURN
#else
#  define CUGUARD_IMPL_FAIL_NORETURN [[noreturn]]
#endif

// cuguard.torch.load builds an emulated extension with checks on with this set: the live tensor
// storages are known (detail/runtime/live_memory.hpp), and a T* converted to a cuguard::ptr is
// bounded by its storage. sanitize=True adds -fsanitize=kernel-address (the compiler's access
// callbacks, without AddressSanitizer's runtime, which a plain python3 cannot load): the
// callbacks check kernels' raw accesses against the same storages. AddressSanitizer's runtime is linked where the compiler
// sanitizes addresses otherwise (cuguard_emulate(... SANITIZE), -fsanitize=address).
#if !defined(CUGUARD_IMPL_SANITIZE_STORAGES)
#  define CUGUARD_IMPL_SANITIZE_STORAGES 0
#endif
// The exit status of an emulated program that printed a report, where
// CUGUARD_EMULATION_ERROR_EXITCODE does not say (detail/runtime/error_exit.hpp): 0 keeps the
// program's own; cuguard_emulate(... SANITIZE) defines it as 1, as compute-sanitizer's
// --error-exitcode 1.
#if !defined(CUGUARD_IMPL_ERROR_EXITCODE)
#  define CUGUARD_IMPL_ERROR_EXITCODE 0
#endif
#if defined(__SANITIZE_ADDRESS__) && !CUGUARD_IMPL_SANITIZE_STORAGES
#  define CUGUARD_IMPL_ASAN_RUNTIME 1
#else
#  define CUGUARD_IMPL_ASAN_RUNTIME 0
#endif

// ---------------------------------------------------------------------------------------------
// ABI namespace: every macro that changes inline code or shared state (checks, emulation, the
// host and device policies, the lifetime table's size) gives every cuguard entity a different
// mangled name, so a program that mixes translation units built differently fails to link
// instead of silently breaking the ODR ("checked_v7", "checked_emulated_abort_trap_slots8_v7").
// The number changes with the layout of a view or of the report channel (v1: views carry their
// launch number; v2: the record holds the allocation's size; v3: the record's numbers by name;
// v4: bounded records whether its value and bound are unsigned; v5: the record says whether its
// count is a lower bound; v6: the record holds no lifetime or space verdict of an access; v7: the record names a second
// thread and site, for divergent barriers).
// ---------------------------------------------------------------------------------------------
#if CUGUARD_IMPL_CHECKS
#  define CUGUARD_IMPL_ABI_MODE checked
#else
#  define CUGUARD_IMPL_ABI_MODE unchecked
#endif
#if CUGUARD_IMPL_EMULATION
#  define CUGUARD_IMPL_ABI_EMULATION _emulated
#else
#  define CUGUARD_IMPL_ABI_EMULATION
#endif
#if CUGUARD_IMPL_THROW
#  define CUGUARD_IMPL_ABI_HOST_POLICY
#else
#  define CUGUARD_IMPL_ABI_HOST_POLICY _abort
#endif
#if CUGUARD_IMPL_DEVICE_TRAP
#  define CUGUARD_IMPL_ABI_DEVICE_POLICY _trap
#elif CUGUARD_IMPL_DEVICE_CONTINUE
#  define CUGUARD_IMPL_ABI_DEVICE_POLICY _continue
#else
#  define CUGUARD_IMPL_ABI_DEVICE_POLICY
#endif
#if CUGUARD_IMPL_LIFETIME_SLOTS != 4096
#  define CUGUARD_IMPL_ABI_SLOTS CUGUARD_IMPL_CAT(_slots, CUGUARD_IMPL_LIFETIME_SLOTS)
#else
#  define CUGUARD_IMPL_ABI_SLOTS
#endif
#define CUGUARD_IMPL_CAT6_(a, b, c, d, e, f) a##b##c##d##e##f
#define CUGUARD_IMPL_CAT6(a, b, c, d, e, f) CUGUARD_IMPL_CAT6_(a, b, c, d, e, f)
#define CUGUARD_IMPL_ABI                                                                               \
  CUGUARD_IMPL_CAT6(CUGUARD_IMPL_ABI_MODE, CUGUARD_IMPL_ABI_EMULATION, CUGUARD_IMPL_ABI_HOST_POLICY,     \
                    CUGUARD_IMPL_ABI_DEVICE_POLICY, CUGUARD_IMPL_ABI_SLOTS, _v7)
#define CUGUARD_IMPL_BEGIN_NAMESPACE \
  namespace cuguard {                \
  inline namespace CUGUARD_IMPL_ABI {
#define CUGUARD_IMPL_END_NAMESPACE \
  }                                \
  }

CUGUARD_IMPL_BEGIN_NAMESPACE
/// True when this translation unit was compiled with CUGUARD_ENABLE_CHECKS=1.
inline constexpr bool checks_enabled = CUGUARD_IMPL_CHECKS != 0;
/// True when kernels of this translation unit run on CPU threads (CUGUARD_EMULATION=1).
inline constexpr bool emulated = CUGUARD_IMPL_EMULATION != 0;
/// What a thread of a kernel does once it has recorded a violation.
enum class device_policy {
  stop_thread, ///< default: the thread exits; the others run on (the count becomes a lower bound)
  proceed,     ///< CUGUARD_ON_DEVICE_VIOLATION_CONTINUE: the access is redirected to a scratch element
  trap,        ///< CUGUARD_ON_DEVICE_VIOLATION_TRAP: the kernel stops, the CUDA context is lost
};
/// The device policy of this translation unit.
inline constexpr device_policy device_violation_policy = CUGUARD_IMPL_DEVICE_TRAP       ? device_policy::trap
                                                         : CUGUARD_IMPL_DEVICE_CONTINUE ? device_policy::proceed
                                                                                        : device_policy::stop_thread;
CUGUARD_IMPL_END_NAMESPACE
