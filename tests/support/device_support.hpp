// SPDX-License-Identifier: Apache-2.0
// Helpers of the device suites (shared with the host suites' helpers).
#pragma once

#include "support.hpp"

#include <cuguard/cuguard.hpp>

#include <string>

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
} // namespace device_test_support
