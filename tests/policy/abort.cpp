// SPDX-License-Identifier: Apache-2.0
// The abort policy (CUGUARD_ON_VIOLATION_ABORT): the report goes to stderr and the program aborts.
#include <cuguard/cuguard.hpp>

int main() {
  float w[4] = {};
  auto weights = cuguard::make_view(w, {4}, "weights");
  int i = 4;
  float sum = 0;
  sum += weights[i];
  return static_cast<int>(sum);
}
