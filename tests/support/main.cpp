// SPDX-License-Identifier: Apache-2.0
// doctest's main for every suite. A GPU suite (CUGUARD_TEST_GPU_SUITE, set by the device and
// kernel suites' nvcc builds) needs a GPU: without one it reports the suite as skipped (exit 77),
// or as failed when CUGUARD_REQUIRE_GPU=1. Every suite skips the tests of host memory where the
// GPU reads pageable memory (support.hpp).
#define DOCTEST_CONFIG_IMPLEMENT
#include "support.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
#if defined(CUGUARD_TEST_GPU_SUITE) && !CUGUARD_EMULATION
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    const char* required = std::getenv("CUGUARD_REQUIRE_GPU");
    if (required != nullptr && std::strcmp(required, "1") == 0) {
      std::fprintf(stderr, "no CUDA device, and CUGUARD_REQUIRE_GPU=1: failing\n");
      return 1;
    }
    std::printf("no CUDA device: the GPU suite is skipped\n");
    return 77;
  }
#endif
  doctest::Context context(argc, argv);
  cuguard_test::apply_device_filters(context);
  return context.run();
}
