// SPDX-License-Identifier: Apache-2.0
// Writing through a view of const elements.
#include <cuguard/cuguard.hpp>

int main() {
  const float data[2] = {};
  auto v = cuguard::make_view(data, {2}, "x");
#if defined(CUGUARD_CF_VALID)
  return static_cast<int>(v(1));
#else
  v(1) = 2.0f;
  return 0;
#endif
}
