// SPDX-License-Identifier: Apache-2.0
// What the runtime benchmarks share: the label of a build (checks, GPU or emulation), the
// timing of one run per iteration (CUDA events on a GPU, wall time under emulation), and main.
#pragma once

#include <cuguard/cuguard.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace bench_timing {

inline const char* label() {
  static const std::string text = std::string(cuguard::checks_enabled ? "checks on" : "checks off") +
                                  (cuguard::emulated ? ", emulation (CPU)" : ", GPU");
  return text.c_str();
}

/// Times `run` per iteration: CUDA events on a GPU, wall time under emulation.
template <class Run>
void measure(benchmark::State& state, std::int64_t bytes, Run run) {
  run();
  cuguard::check(); // warm-up, and any violation surfaces before timing
#if CUGUARD_EMULATION
  for (auto _ : state) {
    run();
    cuguard::check();
  }
#else
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (auto _ : state) {
    cudaEventRecord(start);
    run();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(static_cast<double>(ms) / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cuguard::check();
#endif
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetLabel(label());
}

/// A benchmark program's main: on a GPU build without a GPU, says so and exits with 77 (skipped);
/// else runs the benchmarks the arguments select.
inline int run(int argc, char** argv, const char* program) {
#if !CUGUARD_EMULATION
  int devices = 0;
  const cudaError_t s = cudaGetDeviceCount(&devices);
  if (s != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no CUDA device answers (%s): these benchmarks need a GPU\n", program,
                 s != cudaSuccess ? cudaGetErrorName(s) : "no device");
    return 77;
  }
#else
  (void)program;
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

} // namespace bench_timing
