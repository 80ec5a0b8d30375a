// SPDX-License-Identifier: Apache-2.0
// Raw-pointer kernels as extensions write them (bench/static/pointer_kernels.cu: rows, gather,
// params, vec4), raw, hand-checked and with cuguard::ptr, from one source built checks on and
// off: on a GPU (nvcc; timed with CUDA events) and under emulation (g++; wall time, CPU figures).
// With checks off the cuguard::ptr kernels are the raw ones (the same SASS: static.pointer_kernels).
#include "../static/pointer_kernels.cu"

#include <benchmark/benchmark.h>

#include "timing.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// Emulation runs kernels on CPU threads: it gets smaller problems.
constexpr int cols = 256;
constexpr int rows_count = cuguard::emulated ? 256 : 65536;
constexpr unsigned blocks = cuguard::emulated ? 8 : 1024;

using bench_timing::measure;

/// The buffers every kernel reads and writes: a table of rows_count x cols floats, an index of
/// rows_count rows (row i reads row (7 i) mod rows_count), and an output of the table's size.
struct buffers {
  static constexpr std::size_t n = static_cast<std::size_t>(rows_count) * cols;
  cuguard::device_buffer<float> a{n, "a"}, b{n, "b"}, out{n, "out"};
  cuguard::device_buffer<std::int64_t> index{static_cast<std::size_t>(rows_count), "index"};
  buffers() {
    a.copy_from_host(std::vector<float>(n, 1.0f));
    b.copy_from_host(std::vector<float>(n, 2.0f));
    std::vector<std::int64_t> rows(static_cast<std::size_t>(rows_count));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>((7 * i) % rows.size());
    index.copy_from_host(rows);
  }
  static buffers& get() {
    static buffers b;
    return b;
  }
};
constexpr auto elements = static_cast<std::int64_t>(buffers::n);
constexpr unsigned threads = 256;

template <int Variant>
void rows(benchmark::State& state) {
  buffers& m = buffers::get();
  measure(state, 2 * elements * 4, [&] {
    if constexpr (Variant == 0) cuguard::launch(raw::rows, blocks, threads, m.a.data(), m.out.data(), rows_count, cols, 2.0f);
    if constexpr (Variant == 1)
      cuguard::launch(hand::rows, blocks, threads, m.a.data(), elements, m.out.data(), elements, rows_count, cols, 2.0f);
    if constexpr (Variant == 2) cuguard::launch(cg::rows, blocks, threads, m.a.data(), m.out.data(), rows_count, cols, 2.0f);
  });
}

template <int Variant>
void gather(benchmark::State& state) {
  buffers& m = buffers::get();
  measure(state, 2 * elements * 4 + rows_count * 8, [&] {
    if constexpr (Variant == 0)
      cuguard::launch(raw::gather, blocks, threads, m.a.data(), m.index.data(), m.out.data(), rows_count, cols);
    if constexpr (Variant == 1)
      cuguard::launch(hand::gather, blocks, threads, m.a.data(), elements, m.index.data(), std::int64_t{rows_count},
                      m.out.data(), elements, rows_count, cols);
    if constexpr (Variant == 2)
      cuguard::launch(cg::gather, blocks, threads, m.a.data(), m.index.data(), m.out.data(), rows_count, cols);
  });
}

template <int Variant>
void params(benchmark::State& state) {
  buffers& m = buffers::get();
  measure(state, 3 * elements * 4, [&] {
    if constexpr (Variant == 0) cuguard::launch(raw::params, blocks, threads, raw::sum_params{m.a.data(), m.b.data(), m.out.data(), elements});
    if constexpr (Variant == 1)
      cuguard::launch(hand::params, blocks, threads,
                      hand::sum_params{m.a.data(), elements, m.b.data(), elements, m.out.data(), elements, elements});
    if constexpr (Variant == 2) cuguard::launch(cg::params, blocks, threads, cg::sum_params{m.a.data(), m.b.data(), m.out.data(), elements});
  });
}

template <int Variant>
void vec4(benchmark::State& state) {
  buffers& m = buffers::get();
  measure(state, 2 * elements * 4, [&] {
    if constexpr (Variant == 0) cuguard::launch(raw::vec4, blocks, threads, m.a.data(), m.out.data(), elements / 4);
    if constexpr (Variant == 1)
      cuguard::launch(hand::vec4, blocks, threads, m.a.data(), elements, m.out.data(), elements, elements / 4);
    if constexpr (Variant == 2) cuguard::launch(cg::vec4, blocks, threads, m.a.data(), m.out.data(), elements / 4);
  });
}

// Variant 0: raw T*; 1: raw T* with the hand-written check; 2: cuguard::ptr.
#if CUGUARD_EMULATION
#  define CUGUARD_POINTER_TIME UseRealTime
#else
#  define CUGUARD_POINTER_TIME UseManualTime
#endif
#define CUGUARD_POINTER_BENCH(kernel)                                                                 \
  BENCHMARK(kernel<0>)->Name(#kernel "/raw")->CUGUARD_POINTER_TIME()->Unit(benchmark::kMicrosecond);   \
  BENCHMARK(kernel<1>)->Name(#kernel "/hand")->CUGUARD_POINTER_TIME()->Unit(benchmark::kMicrosecond);  \
  BENCHMARK(kernel<2>)->Name(#kernel "/ptr")->CUGUARD_POINTER_TIME()->Unit(benchmark::kMicrosecond);
CUGUARD_POINTER_BENCH(rows)
CUGUARD_POINTER_BENCH(gather)
CUGUARD_POINTER_BENCH(params)
CUGUARD_POINTER_BENCH(vec4)

} // namespace

int main(int argc, char** argv) { return bench_timing::run(argc, argv, "bench.pointers.gpu"); }
