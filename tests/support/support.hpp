// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the host tests: catching a violation in place and the expected "at" line.
#pragma once

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

namespace cuguard_test {

/// Sixteen floats 0 to 15, 16-byte aligned (for contiguity and vector-access tests).
struct alignas(16) aligned_floats {
  float v[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
};

/// What a statement raised: the record and the formatted report.
struct caught {
  bool thrown = false;
  cuguard::violation report{};
  std::string what;
};

/// "\n  at FILE:LINE in FUNCTION", as the report prints the offending expression's position.
inline std::string at(const char* file, int line, const char* function) {
  return "\n  at " + std::string(file) + ":" + std::to_string(line) + " in " + function;
}

/// Whether the current GPU reads pageable host memory (cudaDevAttrPageableMemoryAccess: HMM or
/// ATS). There cuguard classes host memory as managed, since device code may touch it, and the
/// tests that expect "host memory" are skipped (host_memory_suite). False under emulation, in
/// builds without the CUDA runtime (g++ outside emulation) and without a GPU.
inline bool gpu_reads_pageable_memory() {
#if CUGUARD_EMULATION || !defined(__CUDACC__)
  return false;
#else
  int device = 0;
  int pageable = 0;
  const bool asked = cudaGetDevice(&device) == cudaSuccess &&
                     cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) == cudaSuccess;
  (void)cudaGetLastError();
  return asked && pageable != 0;
#endif
}

/// The test suite of the tests that expect pageable memory to be reported as host memory:
/// `TEST_CASE("..." * cuguard_test::host_memory_suite())`. apply_device_filters skips it where the
/// GPU reads pageable memory.
inline doctest::test_suite host_memory_suite() { return doctest::test_suite("host memory"); }

/// What every suite's main does before it runs: skip the host-memory tests, with the reason,
/// where the GPU reads pageable memory.
inline void apply_device_filters(doctest::Context& context) {
  if (!gpu_reads_pageable_memory()) return;
  context.addFilter("test-suite-exclude", "host memory");
  std::printf("this GPU reads pageable host memory (cudaDevAttrPageableMemoryAccess = 1: HMM or ATS), so "
              "cuguard reports it as managed memory: the tests of host memory are skipped\n");
}

} // namespace cuguard_test

/// Runs the statement in place (so that the report's file, line and function are this test's)
/// and stores the violation it raised, if any, in `out`.
#define CUGUARD_TEST_CATCH(out, ...)                        \
  do {                                                      \
    out = ::cuguard_test::caught{};                         \
    try {                                                   \
      __VA_ARGS__;                                          \
    } catch (const ::cuguard::violation_error& e) {         \
      out.thrown = true;                                    \
      out.report = e.report();                              \
      out.what = e.what();                                  \
    }                                                       \
  } while (0)

/// The position of the statement on the same line, in report form.
#define CUGUARD_TEST_AT() ::cuguard_test::at(__FILE__, __LINE__, __func__)

/// A test that needs checks on; reported as skipped in unchecked builds.
#define CUGUARD_CHECKED_TEST(name) TEST_CASE(name * doctest::skip(!::cuguard::checks_enabled))
/// A test of the unchecked build; reported as skipped in checked builds.
#define CUGUARD_UNCHECKED_TEST(name) TEST_CASE(name * doctest::skip(::cuguard::checks_enabled))
