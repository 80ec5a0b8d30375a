// SPDX-License-Identifier: Apache-2.0
// What the policy programs share: their failures counted, and a GPU build's exit where there is no
// CUDA device (skipped, 77, as ctest's SKIP_RETURN_CODE reads it; failed where CUGUARD_REQUIRE_GPU=1).
#pragma once

#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace policy_program {

inline int failures = 0;

inline void expect(bool ok, const char* what) {
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what);
  }
}

/// The status a GPU build without a CUDA device exits with (77, or 1 where CUGUARD_REQUIRE_GPU=1),
/// else -1: the program runs (a device, or emulation).
inline int no_device_status() {
#if !CUGUARD_EMULATION
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    const char* required = std::getenv("CUGUARD_REQUIRE_GPU");
    if (required != nullptr && std::strcmp(required, "1") == 0) {
      std::printf("no CUDA device, and CUGUARD_REQUIRE_GPU=1: failing\n");
      return 1;
    }
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
#endif
  return -1;
}

} // namespace policy_program
