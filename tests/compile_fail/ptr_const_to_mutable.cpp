// SPDX-License-Identifier: Apache-2.0
// A cuguard::ptr<const T> does not convert to a cuguard::ptr<T>, as a const T* does not to a T*
// (checks on and off).
#include <cuguard/ptr.hpp>

int main() {
  static const float data[4] = {};
  cuguard::ptr<const float> p = data;
#ifdef CUGUARD_CF_VALID
  cuguard::ptr<const float> q = p;
#else
  cuguard::ptr<float> q = p;
#endif
  return q == nullptr ? 1 : 0;
}
