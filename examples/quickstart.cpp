// SPDX-License-Identifier: Apache-2.0
// Quick start: an embedding lookup whose index list holds one index past the end. With checks on,
// the bad read is reported where it happens, with the tensor, the index and where it came from.
#include <cuguard/cuguard.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

// The loop a gather kernel runs per (row, column); the same code runs in a __global__ function.
void gather_rows(cuguard::checked_view<const float, 2> table, cuguard::checked_view<const std::int64_t, 1> rows,
                 cuguard::checked_view<float, 2> out) {
  for (std::int64_t i = 0; i < out.extent(0); ++i) {
    const auto row = cuguard::index_from(rows, i);
    for (std::int64_t j = 0; j < out.extent(1); ++j) out(i, j) = table(row, j);
  }
}

int main() {
  std::vector<float> embeddings(1024 * 256, 1.0f);
  std::vector<std::int64_t> mask_idx = {3, 17, 1023, 512, 9, 1030}; // 1030: one bad index
  std::vector<float> gathered(mask_idx.size() * 256);

  auto table = cuguard::make_view(embeddings.data(), {1024, 256}, "embeddings");
  auto rows = cuguard::make_view(mask_idx.data(), {6}, "mask_idx");
  auto out = cuguard::make_view(gathered.data(), {6, 256}, "gathered");
  std::printf("table:    %s\nrows:     %s\ngathered: %s\n\n", cuguard::describe(table).c_str(),
              cuguard::describe(rows).c_str(), cuguard::describe(out).c_str());

  try {
    gather_rows(table, rows, out);
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
    return 0;
  }
  std::printf("no violation reported%s\n", cuguard::checks_enabled ? " (unexpected)" : ": checks are off");
  return cuguard::checks_enabled ? 1 : 0;
}
