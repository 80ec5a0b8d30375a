// SPDX-License-Identifier: Apache-2.0
// The kernels of cuguard::kernels, checked and unchecked from this one source: on a GPU (nvcc;
// timed with CUDA events) and under emulation (g++; wall time, CPU figures). Each benchmark
// reports the bytes it must move; `copy` is a plain device-to-device copy for reference.
#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/gather.hpp>
#include <cuguard/kernels/lstm.hpp>

#include <benchmark/benchmark.h>

#include "timing.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace k = cuguard::kernels;

// Emulation runs kernels on CPU threads: it gets smaller problems.
constexpr std::int64_t scale = cuguard::emulated ? 1 : 64;

using bench_timing::measure;

template <class T>
cuguard::device_buffer<T> filled(std::size_t n, const char* name, T value) {
  cuguard::device_buffer<T> b(n, name);
  b.copy_from_host(std::vector<T>(n, value));
  return b;
}

void copy(benchmark::State& state) {
  const std::int64_t n = state.range(0) * scale * 256;
  auto src = filled<float>(static_cast<std::size_t>(n), "src", 1.0f);
  cuguard::device_buffer<float> dst(static_cast<std::size_t>(n), "dst");
  measure(state, 2 * n * 4, [&] {
#if CUGUARD_EMULATION
    std::memcpy(dst.data(), src.data(), static_cast<std::size_t>(n) * 4);
#else
    cudaMemcpyAsync(dst.data(), src.data(), static_cast<std::size_t>(n) * 4, cudaMemcpyDeviceToDevice);
#endif
  });
}

void index_select(benchmark::State& state) {
  const std::int64_t rows = state.range(0) * scale, width = 256;
  auto table = filled<float>(static_cast<std::size_t>(rows * width), "table", 1.0f);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) ids[static_cast<std::size_t>(i)] = (i * 7919) % rows;
  cuguard::device_buffer<std::int64_t> d_ids(ids.size(), "ids");
  d_ids.copy_from_host(ids);
  cuguard::device_buffer<float> out(static_cast<std::size_t>(rows * width), "out");
  measure(state, 2 * rows * width * 4 + rows * 8,
          [&] { k::index_select(table.view({rows, width}), 0, d_ids.view(), out.view({rows, width})); });
}

void gather(benchmark::State& state) {
  const std::int64_t rows = state.range(0) * scale, width = 64;
  auto input = filled<float>(static_cast<std::size_t>(rows * width), "input", 1.0f);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(rows * width));
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::int64_t>((i * 13) % static_cast<std::size_t>(width));
  cuguard::device_buffer<std::int64_t> d_idx(idx.size(), "index");
  d_idx.copy_from_host(idx);
  cuguard::device_buffer<float> out(static_cast<std::size_t>(rows * width), "out");
  measure(state, rows * width * (4 + 8 + 4), [&] {
    k::gather(input.view({rows, width}), 1, d_idx.view({rows, width}), out.view({rows, width}));
  });
}

void scatter_add(benchmark::State& state) {
  const std::int64_t rows = state.range(0) * scale, width = 64;
  auto src = filled<float>(static_cast<std::size_t>(rows * width), "src", 1.0f);
  std::vector<std::int32_t> idx(static_cast<std::size_t>(rows * width));
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::int32_t>((i / 64 * 31) % static_cast<std::size_t>(rows));
  cuguard::device_buffer<std::int32_t> d_idx(idx.size(), "index");
  d_idx.copy_from_host(idx);
  cuguard::device_buffer<float> out(static_cast<std::size_t>(rows * width), "out");
  measure(state, rows * width * (4 + 4 + 4),
          [&] { k::scatter_add(out.view({rows, width}), 0, d_idx.view({rows, width}), src.view({rows, width})); });
}

void lstm_cell(benchmark::State& state) {
  const std::int64_t batch = state.range(0) * scale, hidden = 256;
  auto gx = filled<float>(static_cast<std::size_t>(batch * 4 * hidden), "gates_x", 0.1f);
  auto gh = filled<float>(static_cast<std::size_t>(batch * 4 * hidden), "gates_h", 0.1f);
  auto c = filled<float>(static_cast<std::size_t>(batch * hidden), "c", 0.0f);
  cuguard::device_buffer<float> h(static_cast<std::size_t>(batch * hidden), "h");
  measure(state, batch * hidden * 4 * (8 + 3), [&] {
    cuguard::launch({dim3(k::impl::blocks_for(batch * hidden, 256)), dim3(256)}, k::lstm_cell_kernel<float>,
                    cuguard::checked_view<const float, 2>(gx.view({batch, 4 * hidden})),
                    cuguard::checked_view<const float, 2>(gh.view({batch, 4 * hidden})), c.view({batch, hidden}),
                    h.view({batch, hidden}), 0);
  });
}

void lstm_forward(benchmark::State& state) {
  const std::int64_t seq = state.range(0), batch = cuguard::emulated ? 4 : 32, input = cuguard::emulated ? 32 : 256,
                     hidden = input;
  const k::lstm_config config{input, hidden, 1, false};
  auto w_ih = filled<float>(static_cast<std::size_t>(4 * hidden * input), "w_ih", 0.01f);
  auto w_hh = filled<float>(static_cast<std::size_t>(4 * hidden * hidden), "w_hh", 0.01f);
  auto b = filled<float>(static_cast<std::size_t>(4 * hidden), "bias", 0.0f);
  const std::vector<k::lstm_weights<float>> weights{
      {w_ih.view({4 * hidden, input}), w_hh.view({4 * hidden, hidden}), b.view({4 * hidden}), b.view({4 * hidden})}};
  auto x = filled<float>(static_cast<std::size_t>(seq * batch * input), "x", 0.5f);
  auto zero = filled<float>(static_cast<std::size_t>(batch * hidden), "state", 0.0f);
  cuguard::device_buffer<float> out(static_cast<std::size_t>(seq * batch * hidden), "out"),
      hn(static_cast<std::size_t>(batch * hidden), "h_n"), cn(static_cast<std::size_t>(batch * hidden), "c_n");
  measure(state, seq * 4 * hidden * (input + hidden) * 4, [&] {
    k::lstm_forward(config, x.view({seq, batch, input}), zero.view({1, batch, hidden}), zero.view({1, batch, hidden}),
                    weights, out.view({seq, batch, hidden}), hn.view({1, batch, hidden}), cn.view({1, batch, hidden}));
  });
}

#if CUGUARD_EMULATION
// The same work as index_select, gather and scatter_add above, as a plain serial C++ loop over
// the same host memory: what an emulated kernel is held against (the kernel's cost under
// emulation is the scheduler's and the checks', over this loop's).
void index_select_loop(benchmark::State& state) {
  const std::int64_t rows = state.range(0) * scale, width = 256;
  std::vector<float> table(static_cast<std::size_t>(rows * width), 1.0f), out(table.size());
  std::vector<std::int64_t> ids(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) ids[static_cast<std::size_t>(i)] = (i * 7919) % rows;
  for (auto _ : state) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* src = table.data() + ids[static_cast<std::size_t>(r)] * width;
      float* dst = out.data() + r * width;
      for (std::int64_t j = 0; j < width; ++j) dst[j] = src[j];
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * (2 * rows * width * 4 + rows * 8));
  state.SetLabel("serial loop (CPU)");
}

void gather_loop(benchmark::State& state) {
  const std::int64_t rows = state.range(0) * scale, width = 64;
  std::vector<float> input(static_cast<std::size_t>(rows * width), 1.0f), out(input.size());
  std::vector<std::int64_t> idx(input.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::int64_t>((i * 13) % static_cast<std::size_t>(width));
  for (auto _ : state) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < width; ++j)
        out[static_cast<std::size_t>(r * width + j)] =
            input[static_cast<std::size_t>(r * width + idx[static_cast<std::size_t>(r * width + j)])];
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * rows * width * (4 + 8 + 4));
  state.SetLabel("serial loop (CPU)");
}

void scatter_add_loop(benchmark::State& state) {
  const std::int64_t rows = state.range(0) * scale, width = 64;
  std::vector<float> src(static_cast<std::size_t>(rows * width), 1.0f), out(src.size(), 0.0f);
  std::vector<std::int32_t> idx(src.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::int32_t>((i / 64 * 31) % static_cast<std::size_t>(rows));
  for (auto _ : state) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < width; ++j) {
        const std::size_t i = static_cast<std::size_t>(r * width + j);
        out[static_cast<std::size_t>(idx[i]) * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)] += src[i];
      }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * rows * width * (4 + 4 + 4));
  state.SetLabel("serial loop (CPU)");
}
#endif

} // namespace

#if CUGUARD_EMULATION
#  define CUGUARD_BENCH(fn) BENCHMARK(fn)->UseRealTime()->Unit(benchmark::kMicrosecond)
#else
#  define CUGUARD_BENCH(fn) BENCHMARK(fn)->UseManualTime()->Unit(benchmark::kMicrosecond)
#endif
CUGUARD_BENCH(copy)->Arg(16)->Arg(256)->Arg(2048);
CUGUARD_BENCH(index_select)->Arg(16)->Arg(256)->Arg(2048);
CUGUARD_BENCH(gather)->Arg(64)->Arg(1024)->Arg(8192);
CUGUARD_BENCH(scatter_add)->Arg(64)->Arg(1024)->Arg(8192);
CUGUARD_BENCH(lstm_cell)->Arg(1)->Arg(16)->Arg(128);
CUGUARD_BENCH(lstm_forward)->Arg(4)->Arg(16);
#if CUGUARD_EMULATION
CUGUARD_BENCH(index_select_loop)->Arg(16)->Arg(256)->Arg(2048);
CUGUARD_BENCH(gather_loop)->Arg(64)->Arg(1024)->Arg(8192);
CUGUARD_BENCH(scatter_add_loop)->Arg(64)->Arg(1024)->Arg(8192);
#endif

int main(int argc, char** argv) { return bench_timing::run(argc, argv, "bench.kernels.gpu"); }
