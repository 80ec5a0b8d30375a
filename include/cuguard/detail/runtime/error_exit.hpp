// SPDX-License-Identifier: Apache-2.0
// The exit status of an emulated program that reported an error, as compute-sanitizer's
// --error-exitcode: every report the emulated runtime prints (a violation, a race, a divergent
// barrier, an uninitialized read, a leak, a runtime call that returned an error,
// AddressSanitizer's and UndefinedBehaviorSanitizer's reports) is counted, and at exit a program
// that reported any exits with CUGUARD_EMULATION_ERROR_EXITCODE (default 1 in a program built by
// cuguard_emulate(... SANITIZE), which defines CUGUARD_IMPL_ERROR_EXITCODE=1, so that CI fails on
// a report; 0 leaves the program's own status, the default elsewhere).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/environment.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

extern "C" int __lsan_do_recoverable_leak_check() __attribute__((weak));

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// The reports printed so far.
inline std::atomic<unsigned long long> errors_reported{0};

/// Counts one printed report.
inline void count_error() noexcept { errors_reported.fetch_add(1, std::memory_order_relaxed); }

/// CUGUARD_EMULATION_ERROR_EXITCODE: the status of a program that reported an error (0: its own).
/// Not set: CUGUARD_IMPL_ERROR_EXITCODE (1 under cuguard_emulate(... SANITIZE), else 0). A value
/// that is not a number from 0 to 255 is said on stderr and taken as 1.
inline int error_exitcode() noexcept {
  const char* value = platform::environment(platform::setting::emulation_error_exitcode);
  if (value == nullptr || *value == '\0') return CUGUARD_IMPL_ERROR_EXITCODE;
  char* end = nullptr;
  const long code = std::strtol(value, &end, 10);
  if (*end != '\0' || code < 0 || code > 255) {
    std::fprintf(stderr, "cuguard: %s=%s is not an exit status from 0 to 255: 1 is used\n",
                 platform::name_of(platform::setting::emulation_error_exitcode), value);
    return 1;
  }
  return static_cast<int>(code);
}

/// At exit, after every other exit-time report (this handler is registered as the program starts,
/// before any of theirs, so it runs after them): where reports were printed and the setting asks
/// for it, ends the process with that status. LeakSanitizer's check, which would run after it,
/// runs first here.
inline void exit_on_errors() {
  if (errors_reported.load(std::memory_order_relaxed) == 0) return;
  const int code = error_exitcode();
  if (code == 0) return;
  std::fflush(nullptr);
  if (&__lsan_do_recoverable_leak_check != nullptr) (void)__lsan_do_recoverable_leak_check();
  std::fprintf(stderr, "cuguard: %llu error%s reported: exit status %d (%s=0 keeps the program's own)\n",
               static_cast<unsigned long long>(errors_reported.load(std::memory_order_relaxed)),
               errors_reported.load(std::memory_order_relaxed) == 1 ? "" : "s", code,
               platform::name_of(platform::setting::emulation_error_exitcode));
  std::fflush(nullptr);
  ::_exit(code);
}

/// Registers exit_on_errors as the program starts (an inline variable of every translation unit
/// of the emulated runtime; the first one registers it).
inline const bool exit_on_errors_registered = [] {
  std::atexit(&exit_on_errors);
  return true;
}();

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
