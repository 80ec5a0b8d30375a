// SPDX-License-Identifier: Apache-2.0
// A view that outlives its buffer: the kernel launched with it is stopped at the launch, with
// where the buffer was allocated and released. A kernel queued before the release is fine.
#include <cuguard/cuguard.hpp>

#include <cstdio>

__global__ void scale(cuguard::checked_view<float, 1> x, float factor) {
  const auto i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < x.extent(0)) x[i] *= factor;
}

int main() {
  auto hidden = cuguard::device_buffer<float>(256, "hidden_state");
  const auto h = hidden.view();
  cuguard::launch(scale, 2, 128, h, 0.5f); // queued before the release: not flagged
  hidden.release();                        // stream-ordered
  try {
    cuguard::launch(scale, 2, 128, h, 2.0f); // after it: use after free
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
}
