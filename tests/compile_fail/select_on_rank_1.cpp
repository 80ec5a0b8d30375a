// SPDX-License-Identifier: Apache-2.0
// select() needs a dimension to keep.
#include <cuguard/cuguard.hpp>

int main() {
  float data[4] = {};
#if defined(CUGUARD_CF_VALID)
  auto v = cuguard::make_view(data, {2, 2}, "x");
  return static_cast<int>(v.select(0, 1)(0));
#else
  auto v = cuguard::make_view(data, {4}, "x");
  (void)v.select(0, 1);
  return 0;
#endif
}
