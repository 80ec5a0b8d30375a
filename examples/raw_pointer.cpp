// SPDX-License-Identifier: Apache-2.0
// A raw-pointer kernel as most are written, its T* parameters renamed cuguard::ptr<T> and nothing
// else: a row past the end is reported with the line, the offset, the extent and the allocation.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <vector>

// out[r][c] = 2 * in[r][c], a pointer moved to each row: as written with const float* and float*.
__global__ void scale_rows(cuguard::ptr<const float> in, cuguard::ptr<float> out, int rows, int cols) {
  const int r = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (r > rows) return; // the bug: `>=` was meant
  cuguard::ptr<const float> src = in + r * cols;
  cuguard::ptr<float> dst = out + r * cols;
  for (int c = 0; c < cols; ++c) dst[c] = 2.0f * src[c];
}

int main() {
  constexpr int rows = 12, cols = 8;
  cuguard::device_buffer<float> in(rows * cols, "in"), out(rows * cols, "out");
  in.copy_from_host(std::vector<float>(rows * cols, 1.0f));
  try {
    cuguard::launch(scale_rows, 1, 16, in.data(), out.data(), rows, cols);
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
}
