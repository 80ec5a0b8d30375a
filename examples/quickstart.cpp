// SPDX-License-Identifier: Apache-2.0
// Quick start: an embedding lookup kernel whose index list holds one index past the end. With
// checks on, the bad read is reported where it happens: the tensor, the index, where the index
// came from, the thread and the launch. Built by nvcc it runs on the GPU; built with
// CUGUARD_EMULATION=1 (cuguard::emulation) by a host compiler it runs on CPU threads.
#include <cuguard/cuguard.hpp>

#include <cstdint>
#include <cstdio>
#include <string> // describe() returns a std::string
#include <vector>

// One row of `out` per block, one column per thread.
__global__ void gather_rows(cuguard::checked_view<const float, 2> table, cuguard::checked_view<const std::int64_t, 1> rows,
                            cuguard::checked_view<float, 2> out) {
  const auto row = cuguard::index_from(rows, blockIdx.x); // remembers 'mask_idx'[blockIdx.x]
  for (int j = static_cast<int>(threadIdx.x); j < out.extent(1); j += static_cast<int>(blockDim.x))
    out(blockIdx.x, j) = table(row, j); // checked: row < 1024, j < 256
}

int main() {
  const std::vector<std::int64_t> mask_idx = {3, 17, 1023, 512, 9, 1030}; // 1030: one bad index
  cuguard::device_buffer<float> embeddings(1024 * 256, "embeddings");
  cuguard::device_buffer<std::int64_t> rows(mask_idx.size(), "mask_idx");
  cuguard::device_buffer<float> gathered(mask_idx.size() * 256, "gathered");
  embeddings.fill_bytes(0);
  rows.copy_from_host(mask_idx);

  auto table = embeddings.view({1024, 256});
  std::printf("%s, on %s\n\n", cuguard::describe(table).c_str(), cuguard::emulated ? "CPU threads (emulation)" : "the GPU");
  cuguard::launch(gather_rows, 6, 128, table, rows.view(), gathered.view({6, 256}));
  try {
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
    return 0;
  }
  std::printf("no violation reported%s\n", cuguard::checks_enabled ? " (unexpected)" : ": checks are off");
  return cuguard::checks_enabled ? 1 : 0;
}
