// SPDX-License-Identifier: Apache-2.0
// A vector store through a view of const elements.
#include <cuguard/cuguard.hpp>

int main() {
  alignas(16) const float data[4] = {};
  auto v = cuguard::make_view(data, {4}, "x");
#if defined(CUGUARD_CF_VALID)
  return static_cast<int>(v.load<4>(0)[0]);
#else
  v.store<4>(cuguard::vec<float, 4>{}, 0);
  return 0;
#endif
}
