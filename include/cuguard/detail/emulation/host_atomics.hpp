// SPDX-License-Identifier: Apache-2.0
// libcu++'s atomics compiled for the host (cuda::std::atomic, cuda::atomic_ref, cuda::barrier,
// cuda::pipeline in an emulated kernel), as the race detector sees them. The emulation's copy of
// libcu++'s cuda/std/__atomic/functions/host.h (emulate.py --cccl) opens each of its functions
// with CUGUARD_IMPL_HOST_ATOMIC(__a), so that its access to *__a is an atomic one, as CUDA's
// atomicAdd's is (engine::atomic_noted): elements that threads change only through them race with
// nothing. Its copy of cuda/std/__atomic/wait/notify_wait.h opens __atomic_notify_one and _all
// (which a barrier calls as its phase completes; no-ops on the host) with
// CUGUARD_IMPL_HOST_NOTIFY(): what the block's threads did before is ordered with what they do
// after, as at a __syncthreads() (accesses between a thread's arrive and its wait are not told
// apart: a race there goes unseen). Elsewhere (host code, an unsanitized build, where only
// views' accesses are seen) the marks cost a counter.
#pragma once

#include <cuguard/detail/emulation/grid_runner.hpp>
#include <cuguard/detail/emulation/intrinsics.hpp>

/// Marks the enclosing libcu++ host atomic function's access to `*p` as atomic.
#define CUGUARD_IMPL_HOST_ATOMIC(p)                                                                      \
  const ::cuguard::detail::engine::atomic_noted cuguard_impl_host_atomic {                               \
    const_cast<const void*>(static_cast<const volatile void*>(p)), __builtin_return_address(0) \
  }

/// Marks a notify of libcu++'s atomics (a barrier's phase completes) in an emulated kernel's thread.
#define CUGUARD_IMPL_HOST_NOTIFY()                                                         \
  do {                                                                                     \
    if (auto* cuguard_impl_runner = ::cuguard::detail::engine::kernel_thread_runner())     \
      cuguard_impl_runner->phase_completed();                                              \
  } while (false)
