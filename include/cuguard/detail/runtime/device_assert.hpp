// SPDX-License-Identifier: Apache-2.0
// assert() in an emulated kernel behaves as CUDA's device assert: the failing thread prints
// "file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `expr` failed." as CUDA
// prints it, the grid stops (a trap), and the launch's context is lost with cudaErrorAssert,
// which the next synchronizing call returns (cudaDeviceReset ends it); the process goes on. In
// host code assert() is the C library's: the message, then abort().
//
// glibc's assert() calls __assert_fail; this definition (weak, so that each translation unit
// may hold one; hidden, so that the module's own calls reach it, in a shared library too) comes
// before the C library's.
#pragma once

#include <cuguard/detail/emulation/grid_runner.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/error_exit.hpp>

#include <assert.h> // (glibc's declaration of __assert_fail first: this one adds to it)
#include <errno.h>

#include <cstdio>
#include <cstdlib>

#if defined(__GLIBC__)
extern "C" __attribute__((weak, visibility("hidden"), noreturn)) void
__assert_fail(const char* assertion, const char* file, unsigned int line, const char* function) noexcept {
  if (auto* runner = ::cuguard::detail::engine::kernel_thread_runner()) {
    std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line,
                 function, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, assertion);
    std::fflush(stderr);
    ::cuguard::detail::emulated_runtime::count_error();
    ::cuguard::detail::backend::assert_trapped.store(true, std::memory_order_release);
    runner->trap();
  }
  std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line, function,
               assertion);
  std::fflush(stderr);
  std::abort();
}
#endif
