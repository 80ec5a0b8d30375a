// SPDX-License-Identifier: Apache-2.0
// A rank-2 view indexed with one index.
#include <cuguard/cuguard.hpp>

int main() {
  float data[6] = {};
  auto v = cuguard::make_view(data, {2, 3}, "x");
#if defined(CUGUARD_CF_VALID)
  return static_cast<int>(v(1, 2));
#else
  return static_cast<int>(v(1));
#endif
}
