// SPDX-License-Identifier: Apache-2.0
// A race on shared memory that a GPU hides: each block reverses its 64 elements through a shared
// tile and misses the __syncthreads() between the tile's stores and the reads. Under emulation
// (checks on) the race detector names both threads, the element and both lines; on a GPU the
// result depends on warp timing and nothing is reported (compute-sanitizer --tool racecheck
// finds it there). Run it with CUGUARD_EMULATION_SCHEDULE=reverse to see the results change.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <vector>

__global__ void reverse_blocks(cuguard::checked_view<const float, 1> in, cuguard::checked_view<float, 1> out) {
  __shared__ float storage[64];
  const auto tile = cuguard::make_view(storage, {64}, "tile");
  const int t = static_cast<int>(threadIdx.x), base = static_cast<int>(blockIdx.x) * 64;
  tile(t) = in(base + t);
  // Missing: __syncthreads();
  out(base + t) = tile(63 - t);
}

int main() {
  const int n = 4 * 64;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i);
  cuguard::device_buffer<float> in(n, "in"), out(n, "out");
  in.copy_from_host(x);
  cuguard::launch(reverse_blocks, n / 64, 64, in.view(), out.view());
  try {
    cuguard::check();
    std::printf("no report\n");
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
  const std::vector<float> y = out.to_host();
  int right = 0;
  for (int i = 0; i < n; ++i) right += y[static_cast<std::size_t>(i)] == x[static_cast<std::size_t>(i / 64 * 64 + 63 - i % 64)];
  std::printf("%d of %d elements right\n", right, n);
}
