// SPDX-License-Identifier: Apache-2.0
// Calls scale_in_place from an unchecked translation unit: links only against an unchecked definition.
#include <cuguard/cuguard.hpp>

void scale_in_place(cuguard::checked_view<float, 1> v, float factor);

int main() {
  float data[3] = {1, 2, 3};
  scale_in_place(cuguard::make_view(data, {3}, "data"), 2.0f);
  return data[2] == 6.0f ? 0 : 1;
}
