// SPDX-License-Identifier: Apache-2.0
// cuguard::ptr_cast keeps const, as reinterpret_cast does: a ptr<const float> does not become a
// pointer to mutable float4 (checks on and off).
#include <cuguard/ptr.hpp>

struct alignas(16) quad {
  float v[4];
};

int main() {
  alignas(16) static const float data[8] = {};
  cuguard::ptr<const float> p = data;
#ifdef CUGUARD_CF_VALID
  auto q = cuguard::ptr_cast<const quad>(p);
#else
  auto q = cuguard::ptr_cast<quad>(p);
#endif
  return q == nullptr ? 1 : 0;
}
