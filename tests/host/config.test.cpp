// SPDX-License-Identifier: Apache-2.0
// Tests of the configuration: check mode, ABI namespace, version.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <string>
#include <typeinfo>

TEST_CASE("checks_enabled follows CUGUARD_ENABLE_CHECKS") {
#if CUGUARD_ENABLE_CHECKS
  CHECK(cuguard::checks_enabled);
#else
  CHECK_FALSE(cuguard::checks_enabled);
#endif
}

TEST_CASE("the ABI namespace of a view's type names the check mode") {
  const std::string name = typeid(cuguard::checked_view<float, 1>).name();
  CHECK(name.find("checked_") != std::string::npos);
  const bool unchecked = name.find("unchecked_") != std::string::npos;
  CHECK(unchecked != cuguard::checks_enabled);
}

TEST_CASE("CUGUARD_VERSION combines major, minor and patch") {
  CHECK(CUGUARD_VERSION == CUGUARD_VERSION_MAJOR * 10000 + CUGUARD_VERSION_MINOR * 100 + CUGUARD_VERSION_PATCH);
}
