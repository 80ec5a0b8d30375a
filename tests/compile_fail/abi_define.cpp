// SPDX-License-Identifier: Apache-2.0
// Defines a function that takes a view; built checked or unchecked (see CMakeLists.txt).
#include <cuguard/cuguard.hpp>

void scale_in_place(cuguard::checked_view<float, 1> v, float factor) {
  for (std::int64_t i = 0; i < v.extent(0); ++i) v[i] *= factor;
}
