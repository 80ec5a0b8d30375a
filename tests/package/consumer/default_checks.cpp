// SPDX-License-Identifier: Apache-2.0
// A target that leaves checks to the project's default (no CUGUARD_CHECKS property): the project
// was configured with -DCUGUARD_CHECKS=ON in a Release build, so checks must be on, through
// find_package as through add_subdirectory.
#include <cuguard/cuguard.hpp>

#include <cstdio>

int main() {
  std::printf("checks %s by default\n", cuguard::checks_enabled ? "on" : "off");
  return cuguard::checks_enabled ? 0 : 1;
}
