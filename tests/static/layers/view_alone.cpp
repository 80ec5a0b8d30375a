// SPDX-License-Identifier: Apache-2.0
// A program of views alone: <cuguard/checked_view.hpp> and nothing of the runtime. tests/static/layers/
// layers.py builds it (g++ and nvcc, checks on and off), runs it and checks what it parsed and
// linked.
#include <cuguard/checked_view.hpp>

#include <cstdio>

#if defined(__CUDACC__)
// Device code that reads views, so that nvcc compiles the device side of every access.
__global__ void scale(cuguard::checked_view<float, 2> v, float a) {
  if (threadIdx.x < v.extent(1)) v(blockIdx.x, threadIdx.x) *= a;
}
#endif

int main() {
  float data[6] = {0, 1, 2, 3, 4, 5};
  auto v = cuguard::make_view(data, {2, 3}, "data");
  auto column = v.select(1, 2);
  float sum = 0;
  for (int i = 0; i < column.extent(0); ++i) sum += column(i);
  if (sum != 7.0f || !v.is_contiguous() || v.transpose(0, 1).is_contiguous()) {
    std::printf("wrong view arithmetic: sum %g\n", static_cast<double>(sum));
    return 1;
  }
#if CUGUARD_ENABLE_CHECKS
  try {
    (void)v(2, 0);
    std::printf("no violation reported\n");
    return 1;
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
#endif
  std::printf("views alone: ok\n");
  return 0;
}
