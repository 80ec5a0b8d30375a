// SPDX-License-Identifier: Apache-2.0
// A view of const T does not convert to a view of T.
#include <cuguard/cuguard.hpp>

int main() {
  float data[2] = {};
  cuguard::checked_view<const float, 1> c = cuguard::make_view(data, {2}, "x");
#if defined(CUGUARD_CF_VALID)
  cuguard::checked_view<const float, 1> m = c;
#else
  cuguard::checked_view<float, 1> m = c;
#endif
  return static_cast<int>(m(0));
}
