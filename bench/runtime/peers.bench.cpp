// SPDX-License-Identifier: Apache-2.0
// Emulation against its peers: the kernels of peer_kernels.hpp run by cuguard's emulation
// (views; checks on or off, from the build) or, built with CUGUARD_BENCH_HIP_CPU, by HIP-CPU
// (ROCm's header-only CPU runtime for HIP; raw pointers), and each kernel's serial loop in every
// build. bench/tools/peers.py runs the builds side by side and prints the table. Each benchmark
// is one kernel run, synchronized, in milliseconds.
#if defined(CUGUARD_BENCH_HIP_CPU)
#include <hip/hip_runtime.h>
#else
#include <cuguard/cuguard.hpp>
#endif

#include "peer_kernels.hpp" // after the runtime, which says what __global__ and __shared__ are

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(CUGUARD_BENCH_HIP_CPU)
namespace {

/// Raw pointers: HIP-CPU's kernels as HIP code writes them.
struct memory {
  template <class T> using in = const T*;
  template <class T> using out = T*;
  struct tile_ref {
    float (*p)[peers::tile_dim + 1];
    float& operator()(int y, int x) const { return p[y][x]; }
  };
  static tile_ref tile(float (&s)[peers::tile_dim][peers::tile_dim + 1]) { return {s}; }
  static float* row(float (&s)[peers::reduce_threads]) { return s; }
  struct square_ref {
    float (*p)[peers::mm_tile];
    float& operator()(int y, int x) const { return p[y][x]; }
  };
  static square_ref square(float (&s)[peers::mm_tile][peers::mm_tile]) { return {s}; }
};

const char* runtime_label() { return "HIP-CPU"; }

template <class T>
struct buffer {
  std::vector<T> data;
  buffer(std::size_t n, const char*, T value) : data(n, value) {}
  T* host() { return data.data(); }
  const T* in() { return data.data(); }
  T* out() { return data.data(); }
};

template <auto Kernel, class... Args>
void run_kernel(dim3 grid, dim3 block, Args... args) {
  hipLaunchKernelGGL(Kernel, grid, block, 0, nullptr, args...);
  if (hipDeviceSynchronize() != hipSuccess) std::abort();
}

} // namespace
#else
namespace {

/// cuguard's views: checks on or off as the build says; the tiles are views of the shared arrays.
struct memory {
  template <class T> using in = cuguard::checked_view<const T, 1>;
  template <class T> using out = cuguard::checked_view<T, 1>;
  CUGUARD_HOST_DEVICE static cuguard::checked_view<float, 2> tile(float (&s)[peers::tile_dim][peers::tile_dim + 1]) {
    return cuguard::make_view(&s[0][0], {peers::tile_dim, peers::tile_dim + 1}, "tile");
  }
  CUGUARD_HOST_DEVICE static cuguard::checked_view<float, 1> row(float (&s)[peers::reduce_threads]) {
    return cuguard::make_view(s, {peers::reduce_threads}, "partial");
  }
  CUGUARD_HOST_DEVICE static cuguard::checked_view<float, 2> square(float (&s)[peers::mm_tile][peers::mm_tile]) {
    return cuguard::make_view(&s[0][0], {peers::mm_tile, peers::mm_tile}, "tile");
  }
  CUGUARD_HOST_DEVICE static cuguard::checked_view<float, 1> warps(float (&s)[peers::reduce_threads / 32]) {
    return cuguard::make_view(s, {peers::reduce_threads / 32}, "warp_sums");
  }
};

const char* runtime_label() { return cuguard::checks_enabled ? "cuguard, checks on" : "cuguard, checks off"; }

template <class T>
struct buffer {
  cuguard::device_buffer<T> data;
  buffer(std::size_t n, const char* name, T value) : data(n, name) { data.copy_from_host(std::vector<T>(n, value)); }
  T* host() { return data.data(); } // emulated device memory is host memory
  cuguard::checked_view<const T, 1> in() { return data.view(); }
  cuguard::checked_view<T, 1> out() { return data.view(); }
};

/// The kernel named at compile time, as hipLaunchKernelGGL names it: launch<kernel> (see launch.hpp).
template <auto Kernel, class... Args>
void run_kernel(dim3 grid, dim3 block, Args... args) {
  cuguard::launch<Kernel>(grid, block, args...);
  cuguard::check();
}

} // namespace
#endif

namespace {

using peers::reduce_threads;
using peers::tile_dim;
using peers::tile_rows;

// The problem sizes: about a millisecond to tens of milliseconds for the serial loop here.
constexpr int select_rows = 4096, select_width = 256;
constexpr int ew_height = 1024, ew_width = 1024;
constexpr int transpose_n = 1024;
constexpr int sum_blocks = 4096;
constexpr int mm_n = 256;

template <class Run>
void measure(benchmark::State& state, const char* label, Run run) {
  run(); // warm-up
  for (auto _ : state) run();
  state.SetLabel(label);
}

std::vector<std::int64_t> select_ids() {
  std::vector<std::int64_t> ids(select_rows);
  for (int i = 0; i < select_rows; ++i) ids[static_cast<std::size_t>(i)] = (std::int64_t{i} * 7919) % select_rows;
  return ids;
}

void index_select(benchmark::State& state) {
  buffer<float> table(std::size_t{select_rows} * select_width, "table", 1.0f), out(std::size_t{select_rows} * select_width, "out", 0.0f);
  buffer<std::int64_t> ids(select_rows, "ids", 0);
  const std::vector<std::int64_t> order = select_ids();
  std::memcpy(ids.host(), order.data(), order.size() * sizeof(std::int64_t));
  const unsigned blocks = select_rows * select_width / 256;
  measure(state, runtime_label(), [&] {
    run_kernel<peers::index_select<memory>>(dim3(blocks), dim3(256), table.in(), ids.in(), out.out(), select_rows, select_width);
  });
}

void index_select_loop(benchmark::State& state) {
  std::vector<float> table(std::size_t{select_rows} * select_width, 1.0f), out(table.size());
  const std::vector<std::int64_t> ids = select_ids();
  measure(state, "serial loop", [&] {
    peers::index_select_loop(table.data(), ids.data(), out.data(), select_rows, select_width);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
}

void elementwise(benchmark::State& state) {
  const std::size_t n = std::size_t{ew_height} * ew_width;
  buffer<float> a(n, "a", 1.0f), b(n, "b", 2.0f), c(n, "c", 0.0f);
  measure(state, runtime_label(), [&] {
    run_kernel<peers::elementwise<memory>>(dim3(32, 32), dim3(32, 8), a.in(), b.in(), c.out(), 3.0f, ew_height, ew_width);
  });
}

void elementwise_loop(benchmark::State& state) {
  const std::size_t n = std::size_t{ew_height} * ew_width;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  measure(state, "serial loop", [&] {
    peers::elementwise_loop(a.data(), b.data(), c.data(), 3.0f, ew_height, ew_width);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  });
}

void transpose(benchmark::State& state) {
  const std::size_t n = std::size_t{transpose_n} * transpose_n;
  buffer<float> in(n, "in", 1.0f), out(n, "out", 0.0f);
  const unsigned tiles = transpose_n / tile_dim;
  measure(state, runtime_label(), [&] {
    run_kernel<peers::transpose<memory>>(dim3(tiles, tiles), dim3(tile_dim, tile_rows), in.in(), out.out(), transpose_n);
  });
}

void transpose_loop(benchmark::State& state) {
  const std::size_t n = std::size_t{transpose_n} * transpose_n;
  std::vector<float> in(n, 1.0f), out(n);
  measure(state, "serial loop", [&] {
    peers::transpose_loop(in.data(), out.data(), transpose_n);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
}

void block_sum(benchmark::State& state) {
  buffer<float> in(std::size_t{sum_blocks} * reduce_threads, "in", 1.0f), out(sum_blocks, "out", 0.0f);
  measure(state, runtime_label(), [&] {
    run_kernel<peers::block_sum<memory>>(dim3(sum_blocks), dim3(reduce_threads), in.in(), out.out());
  });
  if (out.host()[sum_blocks - 1] != static_cast<float>(reduce_threads)) state.SkipWithError("block_sum: wrong sum");
}

void block_sum_loop(benchmark::State& state) {
  std::vector<float> in(std::size_t{sum_blocks} * reduce_threads, 1.0f), out(sum_blocks);
  measure(state, "serial loop", [&] {
    peers::block_sum_loop(in.data(), out.data(), sum_blocks);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  });
}

void matmul(benchmark::State& state) {
  const std::size_t n = std::size_t{mm_n} * mm_n;
  buffer<float> a(n, "a", 1.0f), b(n, "b", 2.0f), c(n, "c", 0.0f);
  const unsigned tiles = mm_n / peers::mm_tile;
  measure(state, runtime_label(), [&] {
    run_kernel<peers::matmul<memory>>(dim3(tiles, tiles), dim3(peers::mm_tile, peers::mm_tile), a.in(), b.in(), c.out(), mm_n);
  });
}

void matmul_loop(benchmark::State& state) {
  const std::size_t n = std::size_t{mm_n} * mm_n;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
  measure(state, "serial loop", [&] {
    peers::matmul_loop(a.data(), b.data(), c.data(), mm_n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  });
}

#if !defined(CUGUARD_BENCH_HIP_CPU)
void tile_sum(benchmark::State& state) {
  buffer<float> in(std::size_t{sum_blocks} * reduce_threads, "in", 1.0f), out(sum_blocks, "out", 0.0f);
  measure(state, runtime_label(), [&] {
    run_kernel<peers::tile_sum<memory>>(dim3(sum_blocks), dim3(reduce_threads), in.in(), out.out());
  });
}
BENCHMARK(tile_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

} // namespace

BENCHMARK(matmul)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(matmul_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(index_select)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(index_select_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(elementwise)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(elementwise_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(transpose)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(transpose_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(block_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(block_sum_loop)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
