// SPDX-License-Identifier: Apache-2.0
// operator[] takes one index, so it is for rank-1 views only.
#include <cuguard/cuguard.hpp>

int main() {
  float data[4] = {};
#if defined(CUGUARD_CF_VALID)
  auto v = cuguard::make_view(data, {4}, "x");
#else
  auto v = cuguard::make_view(data, {2, 2}, "x");
#endif
  return static_cast<int>(v[1]);
}
