// SPDX-License-Identifier: Apache-2.0
// A floating-point index.
#include <cuguard/cuguard.hpp>

int main() {
  float data[2] = {};
  auto v = cuguard::make_view(data, {2}, "x");
#if defined(CUGUARD_CF_VALID)
  return static_cast<int>(v(1));
#else
  return static_cast<int>(v(1.0));
#endif
}
