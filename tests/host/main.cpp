// SPDX-License-Identifier: Apache-2.0
// doctest's main for the host suites: skips the tests of host memory where the GPU reads pageable
// memory (support.hpp).
#define DOCTEST_CONFIG_IMPLEMENT
#include "support.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  cuguard_test::apply_device_filters(context);
  return context.run();
}
