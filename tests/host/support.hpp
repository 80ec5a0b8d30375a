// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the host tests: catching a violation in place and the expected "at" line.
#pragma once

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <string>

namespace cuguard_test {

/// What a statement raised: the record and the formatted report.
struct caught {
  bool thrown = false;
  cuguard::violation report{};
  std::string what;
};

/// "\n  at FILE:LINE in FUNCTION", as the report prints the offending expression's position.
inline std::string at(const char* file, int line, const char* function) {
  return "\n  at " + std::string(file) + ":" + std::to_string(line) + " in " + function;
}

} // namespace cuguard_test

/// Runs the statement in place (so that the report's file, line and function are this test's)
/// and stores the violation it raised, if any, in `out`.
#define CUGUARD_TEST_CATCH(out, ...)                        \
  do {                                                      \
    out = ::cuguard_test::caught{};                         \
    try {                                                   \
      __VA_ARGS__;                                          \
    } catch (const ::cuguard::violation_error& e) {         \
      out.thrown = true;                                    \
      out.report = e.report();                              \
      out.what = e.what();                                  \
    }                                                       \
  } while (0)

/// The position of the statement on the same line, in report form.
#define CUGUARD_TEST_AT() ::cuguard_test::at(__FILE__, __LINE__, __func__)

/// A test that needs checks on; reported as skipped in unchecked builds.
#define CUGUARD_CHECKED_TEST(name) TEST_CASE(name * doctest::skip(!::cuguard::checks_enabled))
/// A test of the unchecked build; reported as skipped in checked builds.
#define CUGUARD_UNCHECKED_TEST(name) TEST_CASE(name * doctest::skip(::cuguard::checks_enabled))
