// SPDX-License-Identifier: Apache-2.0
// Spin-waits in emulated kernels. A GPU thread that waits for what another thread writes polls,
// and backs off with __nanosleep; libcu++'s cuda::barrier, cuda::pipeline and cuda::atomic waits
// compiled for the host poll the same way, backing off with sched_yield() and nanosleep(). The
// threads of an emulated block take turns on one OS thread, so a thread that polls must let the
// others run: called from a kernel's thread, these two yield to the block's next thread (the
// runner's yield) and return at once; anywhere else they are the system's calls.
//
// Each definition is weak (each translation unit may hold one) and hidden (the module's own
// calls reach it, in a shared library too; other libraries keep the C library's).
#pragma once

#include <cuguard/detail/emulation/grid_runner.hpp>

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__)
extern "C" __attribute__((weak, visibility("hidden"))) int sched_yield() noexcept {
  if (auto* runner = ::cuguard::detail::engine::kernel_thread_runner()) {
    runner->yield();
    return 0;
  }
  return static_cast<int>(::syscall(SYS_sched_yield));
}

extern "C" __attribute__((weak, visibility("hidden"))) int nanosleep(const struct timespec* duration,
                                                                    struct timespec* left) {
  if (auto* runner = ::cuguard::detail::engine::kernel_thread_runner()) {
    runner->yield();
    if (left != nullptr) *left = timespec{};
    return 0;
  }
  const int failed = ::clock_nanosleep(CLOCK_REALTIME, 0, duration, left);
  if (failed == 0) return 0;
  errno = failed;
  return -1;
}
#endif
