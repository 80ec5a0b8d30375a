// SPDX-License-Identifier: Apache-2.0
// What a launch costs the host, checks on against checks off: cuguard::launch of kernels that do
// nothing, with no argument, with four views, and with four T* converted to cuguard::ptr (the
// bounds of each looked up from its allocation). Built twice (bench.launch.emulation.checked and
// .unchecked) under emulation, where a launch is the host's steps and a grid of one thread that
// returns at once; each iteration launches and synchronizes, so that the figures of the two
// builds differ by the checked launch's own steps (numbering, the arguments' checks, labels and
// launch numbers). On a GPU (bench.launch.gpu.*, scripts/gpu-bench) a launch is the host's steps, the
// driver's and the GPU's round trip.
#include <cuguard/cuguard.hpp>

#include <benchmark/benchmark.h>

#include "timing.hpp"

#include <cstdint>

namespace {

__global__ void nothing() {}

__global__ void four_views(cuguard::checked_view<float, 1> a, cuguard::checked_view<const float, 1> b,
                           cuguard::checked_view<float, 2> c, cuguard::checked_view<const std::int64_t, 1> d) {
  (void)a, (void)b, (void)c, (void)d;
}

__global__ void four_pointers(cuguard::ptr<float> a, cuguard::ptr<const float> b, cuguard::ptr<float> c,
                              cuguard::ptr<const std::int64_t> d) {
  (void)a, (void)b, (void)c, (void)d;
}

using bench_timing::label;

struct buffers {
  cuguard::device_buffer<float> a{1024, "a"}, b{1024, "b"}, c{1024, "c"};
  cuguard::device_buffer<std::int64_t> d{256, "d"};
  static buffers& get() {
    static buffers m;
    return m;
  }
};

void launch_no_arguments(benchmark::State& state) {
  for (auto _ : state) {
    cuguard::launch(nothing, 1, 1);
    cudaDeviceSynchronize();
  }
  state.SetLabel(label());
}

void launch_four_views(benchmark::State& state) {
  buffers& m = buffers::get();
  const auto a = m.a.view({1024});
  const auto b = cuguard::checked_view<const float, 1>(m.b.view({1024}));
  const auto c = m.c.view({32, 32});
  const auto d = cuguard::checked_view<const std::int64_t, 1>(m.d.view({256}));
  for (auto _ : state) {
    cuguard::launch(four_views, 1, 1, a, b, c, d);
    cudaDeviceSynchronize();
  }
  state.SetLabel(label());
}

void launch_four_pointers(benchmark::State& state) {
  buffers& m = buffers::get();
  float* a = m.a.data();
  const float* b = m.b.data();
  float* c = m.c.data();
  const std::int64_t* d = m.d.data();
  for (auto _ : state) {
    cuguard::launch(four_pointers, 1, 1, a, b, c, d);
    cudaDeviceSynchronize();
  }
  state.SetLabel(label());
}

} // namespace

BENCHMARK(launch_no_arguments);
BENCHMARK(launch_four_views);
BENCHMARK(launch_four_pointers);
int main(int argc, char** argv) { return bench_timing::run(argc, argv, "bench.launch"); }
