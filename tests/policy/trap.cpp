// SPDX-License-Identifier: Apache-2.0
// The trap policy (CUGUARD_ON_DEVICE_VIOLATION_TRAP), in a process of its own: the kernel stops
// at the first violation, check() still yields the complete record, and the context is lost.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <cstring>
#include <string>

#include "policy_program.hpp"

using policy_program::expect;
using policy_program::failures;

__global__ void overrun(cuguard::checked_view<float, 1> v) {
  v[threadIdx.x + 60] = 1.0f;
}
constexpr unsigned overrun_line = __LINE__ - 2;

int main() {
  if (const int status = policy_program::no_device_status(); status >= 0) return status;
  cuguard::device_buffer<float> buf(64, "trapped");
  buf.fill_bytes(0);
  cuguard::launch(overrun, 1, 32, buf.view());
  bool reported = false;
  try {
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    reported = true;
    const cuguard::violation& v = e.report();
    std::printf("%s\n", e.what());
    expect(v.kind == cuguard::violation_kind::out_of_bounds, "kind is out_of_bounds");
    expect(v.line == overrun_line, "line is the access");
    expect(std::strcmp(v.label, "trapped") == 0, "label");
    expect(v.index[0] >= 64 && v.index[0] == static_cast<std::int64_t>(v.thread[0]) + 60, "index matches thread");
    expect(std::string(e.what()).find("the CUDA context is lost") != std::string::npos, "says the context is lost");
  } catch (const std::exception& e) {
    std::printf("unexpected: %s\n", e.what());
  }
  expect(reported, "check() reported the violation");
#if CUGUARD_EMULATION
  // Emulation runs threads in order: thread 4 trapped, so threads 5.. never ran.
  bool later_ran = false;
  try {
    cuguard::launch(overrun, 1, 32, buf.view());
  } catch (const cuguard::cuda_error& e) {
    std::printf("%s\n", e.what());
    later_ran = true;
  }
  expect(later_ran, "a launch after a trap fails: the context is lost");
  // The runtime API says so too, until the device is reset.
  void* p = nullptr;
  expect(cudaMalloc(&p, 16) == cudaErrorLaunchFailure, "cudaMalloc after a trap: cudaErrorLaunchFailure");
  expect(cudaDeviceSynchronize() == cudaErrorLaunchFailure, "cudaDeviceSynchronize after a trap");
  expect(cudaGetLastError() == cudaErrorLaunchFailure, "cudaGetLastError after a trap");
  expect(cudaDeviceReset() == cudaSuccess && cudaGetLastError() == cudaSuccess, "cudaDeviceReset ends the lost context");
  expect(cudaMalloc(&p, 16) == cudaSuccess && cudaFree(p) == cudaSuccess, "cudaMalloc after the reset");
#endif
  std::printf("trap: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
