// SPDX-License-Identifier: Apache-2.0
// A kernel whose parameters are cuguard::ptr, launched with <<<>>> as the first kernel of its
// process (nothing launched through cuguard before it), in a process of its own: converting its
// T* argument sets the device up, so that its violation is recorded (rather than a trap for want
// of a report channel, which loses the CUDA context), and the next conversion raises it. Under
// emulation the launch is cuguard::launch (a translated <<<>>> is one), after the same conversion.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <cstdint>

#include "policy_program.hpp"

using policy_program::expect;
using policy_program::failures;

namespace {
bool device_set_up() {
  cuguard::detail::host_lock lock(cuguard::detail::runtime().mutex);
  return cuguard::detail::device_set_up_locked(cuguard::detail::backend::current_device());
}
} // namespace

/// Thread t writes out[t + from]: the threads from n - from on write past the end.
__global__ void write_from(cuguard::ptr<float> out, int from) {
  out[threadIdx.x + from] = 1.0f;
}
constexpr unsigned write_line = __LINE__ - 2;

int main() {
  if (const int status = policy_program::no_device_status(); status >= 0) return status;
  cuguard::device_buffer<float> out(32, "out");
  float* raw = out.data();
  expect(!device_set_up(), "the device is not set up before the first conversion");
#if CUGUARD_EMULATION
  const cuguard::ptr<float> converted = raw;
  expect(device_set_up(), "converting a pointer to device memory sets the device up");
  cuguard::launch(write_from, 1, 32, converted, 16);
#else
  write_from<<<1, 32>>>(raw, 16);
  expect(device_set_up(), "converting a pointer to device memory sets the device up");
#endif
#if !CUGUARD_EMULATION // (the emulated runtime's synchronizing calls print a report, and leave it to check())
  expect(cudaDeviceSynchronize() == cudaSuccess, "the kernel ended, the context alive");
#endif
  bool raised = false;
  try {
    const cuguard::ptr<float> next = raw;
    (void)next;
  } catch (const cuguard::violation_error& e) {
    raised = true;
    const cuguard::violation& v = e.report();
    std::printf("%s\n", e.what());
    expect(v.kind == cuguard::violation_kind::out_of_bounds, "kind is out_of_bounds");
    expect(v.line == write_line, "line is the access");
    expect(v.index[0] >= 32 && v.index[0] == static_cast<std::int64_t>(v.thread[0]) + 16, "offset is the thread's");
    expect(v.extent[0] == 32, "extent");
  }
  expect(raised, "the next conversion raised the report");
  void* p = nullptr;
  expect(cudaMalloc(&p, 16) == cudaSuccess && cudaFree(p) == cudaSuccess, "the runtime goes on");
  std::printf("first_pointer: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
