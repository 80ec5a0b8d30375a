// SPDX-License-Identifier: Apache-2.0
// Host-side cost of checked_view accesses against raw pointer arithmetic (CPU, g++ -O2). Built
// twice: bench.host_access.checked and bench.host_access.unchecked.
#include <cuguard/cuguard.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

constexpr std::int64_t cols = 256;

void label(benchmark::State& state, std::int64_t bytes) {
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetLabel(cuguard::checks_enabled ? "checks on, CPU" : "checks off, CPU");
}

// Sum of a rows x 256 matrix through a raw pointer.
void raw_pointer_sum(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  std::vector<float> data(static_cast<std::size_t>(rows * cols), 1.0f);
  for (auto _ : state) {
    const float* p = data.data();
    float sum = 0;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) sum += p[i * cols + j];
    benchmark::DoNotOptimize(sum);
  }
  label(state, rows * cols * static_cast<std::int64_t>(sizeof(float)));
}

// The same sum through a checked_view.
void view_sum(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  std::vector<float> data(static_cast<std::size_t>(rows * cols), 1.0f);
  const auto v = cuguard::make_view(static_cast<const float*>(data.data()), {rows, cols}, "data");
  for (auto _ : state) {
    float sum = 0;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) sum += v(i, j);
    benchmark::DoNotOptimize(sum);
  }
  label(state, rows * cols * static_cast<std::int64_t>(sizeof(float)));
}

// Embedding-style gather: rows chosen by an index list, read through checked_index.
void view_gather(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  std::vector<float> table(static_cast<std::size_t>(rows * cols), 1.0f);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) idx[static_cast<std::size_t>(i)] = (i * 7919) % rows;
  std::vector<float> out(table.size());
  const auto t = cuguard::make_view(static_cast<const float*>(table.data()), {rows, cols}, "table");
  const auto ix = cuguard::make_view(static_cast<const std::int64_t*>(idx.data()), {rows}, "idx");
  const auto o = cuguard::make_view(out.data(), {rows, cols}, "out");
  for (auto _ : state) {
    for (std::int64_t i = 0; i < rows; ++i) {
      const auto row = cuguard::index_from(ix, i);
      for (std::int64_t j = 0; j < cols; ++j) o(i, j) = t(row, j);
    }
    benchmark::ClobberMemory();
  }
  label(state, 2 * rows * cols * static_cast<std::int64_t>(sizeof(float)));
}

} // namespace

BENCHMARK(raw_pointer_sum)->Arg(64)->Arg(4096);
BENCHMARK(view_sum)->Arg(64)->Arg(4096);
BENCHMARK(view_gather)->Arg(64)->Arg(4096);
