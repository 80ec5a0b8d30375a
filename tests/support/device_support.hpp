// SPDX-License-Identifier: Apache-2.0
// Helpers of the device suites (shared with the host suites' helpers).
#pragma once

#include "support.hpp"

#include <cuguard/cuguard.hpp>

#include <string>
#if CUGUARD_IMPL_EMULATION
#  include <cstdio>
#  include <unistd.h>
#endif

namespace device_test_support {
/// The report that check() throws for the work queued so far (thrown == false: none).
inline cuguard_test::caught checked() {
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::check());
  return c;
}
inline bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
#if CUGUARD_IMPL_EMULATION
/// What `f` writes to stderr.
template <class F>
std::string stderr_of(F f) {
  std::fflush(stderr);
  std::FILE* file = std::tmpfile();
  const int saved = ::dup(2);
  ::dup2(::fileno(file), 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  std::fclose(file);
  return text;
}
/// Runs `f` with the threads of every block in the order CUGUARD_EMULATION_SCHEDULE=`order` gives.
template <class F>
void under_schedule(const char* order, F f) {
  namespace emu = cuguard::detail::engine;
  const emu::schedule before = emu::active_schedule();
  emu::active_schedule() = emu::schedule::from_text(order);
  f();
  emu::active_schedule() = before;
}
#endif
} // namespace device_test_support
