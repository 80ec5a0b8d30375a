// SPDX-License-Identifier: Apache-2.0
// A kernel that assumes contiguous rows, handed a permuted tensor: expect_contiguous says so,
// and a vector load through the permuted view is reported as non-contiguous.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <string> // describe() returns a std::string

__global__ void row_sums(cuguard::checked_view<const float, 2> x, cuguard::checked_view<float, 1> sums) {
  cuguard::expect_contiguous(x); // this kernel reads rows as packed float4s
  const auto row = static_cast<int>(blockIdx.x);
  float s = 0;
  for (int j = 0; j < x.extent(1); j += 4) {
    const auto q = x.load<4>(row, j);
    s += q[0] + q[1] + q[2] + q[3];
  }
  if (threadIdx.x == 0) sums[row] = s;
}

int main() {
  cuguard::device_buffer<float> x(8 * 16, "activations"), sums(16, "sums");
  x.fill_bytes(0);
  auto t = x.view({8, 16}).permute({1, 0}); // [16, 8], strides [1, 16]: a transposed view
  std::printf("%s\n\n", cuguard::describe(t).c_str());
  cuguard::launch(row_sums, 16, 32, t, sums.view());
  try {
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
}
