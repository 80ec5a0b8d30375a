// SPDX-License-Identifier: Apache-2.0
// A slice past the end: the slice itself is reported, where it is taken, not a later access.
#include <cuguard/cuguard.hpp>

#include <cstdio>

__global__ void last_rows(cuguard::checked_view<const float, 2> x, cuguard::checked_view<float, 1> out, int from) {
  const auto tail = x.slice(0, from, from + 4); // four rows from `from`: needs from + 4 <= rows
  if (threadIdx.x < tail.extent(1)) out[threadIdx.x] = tail(3, threadIdx.x);
}

int main() {
  cuguard::device_buffer<float> x(6 * 8, "scores"), out(8, "out");
  x.fill_bytes(0);
  cuguard::launch(last_rows, 1, 32, x.view({6, 8}), out.view(), 3); // rows 3..6 of 6: one too many
  try {
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
}
