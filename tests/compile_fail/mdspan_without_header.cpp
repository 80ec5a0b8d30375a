// SPDX-License-Identifier: Apache-2.0
// to_mdspan() and make_view of an mdspan need <cuguard/mdspan.hpp>, which <cuguard/cuguard.hpp>
// leaves out: without it, the error names the header.
#include <cuguard/cuguard.hpp>
#if defined(CUGUARD_CF_VALID)
#  include <cuguard/mdspan.hpp>
#endif

#include <cuda/std/mdspan>

int main() {
  float data[6] = {};
  auto m = cuguard::make_view(data, {2, 3}, "x").to_mdspan();
  auto v = cuguard::make_view(cuda::std::mdspan<float, cuda::std::dextents<int, 2>>(data, 2, 3), "y");
  return static_cast<int>(m(1, 2) + v(1, 2));
}
