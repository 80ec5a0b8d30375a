// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime API that host code calls: under emulation, cuguard's (emulated_runtime.hpp);
// in the GPU suites, libcudart itself, so that the two are held to the same answers. What only
// emulation promises (errors where CUDA's are undefined) is marked so.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

namespace device_tests {
__global__ void add_one(cuguard::checked_view<int, 1> v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.extent(0)) v[i] += 1;
}
} // namespace device_tests

TEST_CASE("cudaMalloc, cudaMemcpy and cudaFree move data through a kernel") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(d != nullptr);
  std::vector<int> h(64);
  for (int i = 0; i < 64; ++i) h[static_cast<std::size_t>(i)] = i;
  REQUIRE(cudaMemcpy(d, h.data(), 64 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  cuguard::launch(device_tests::add_one, 2, 32, cuguard::make_view(d, {64}, "d"));
  cuguard::check();
  std::vector<int> back(64, -1);
  REQUIRE(cudaMemcpy(back.data(), d, 64 * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < 64; ++i) CHECK(back[static_cast<std::size_t>(i)] == i + 1);
  REQUIRE(cudaMemset(d, 0, 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(back.data(), d, 64 * sizeof(int), cudaMemcpyDefault) == cudaSuccess);
  CHECK(back[63] == 0);
  CHECK(cudaFree(d) == cudaSuccess);
  CHECK(cudaFree(nullptr) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a bad argument returns CUDA's error and leaves it for cudaGetLastError") {
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMalloc(nullptr, 16) == cudaErrorInvalidValue);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument");
  CHECK(std::string(cudaGetErrorName(cudaErrorMemoryAllocation)) == "cudaErrorMemoryAllocation");
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress)) == "an illegal memory access was encountered");
  CHECK(std::string(cudaGetErrorName(static_cast<cudaError_t>(12345))) == "unrecognized error code");

  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 16) == cudaSuccess);
  int h[4] = {1, 2, 3, 4};
  CHECK(cudaMemcpy(d, h, sizeof h, static_cast<cudaMemcpyKind>(cudaMemcpyDefault + 1)) == cudaErrorInvalidMemcpyDirection);
  CHECK(cudaSetDevice(1 << 20) == cudaErrorInvalidDevice);
  int count = 0;
  CHECK(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count >= 1);
  CHECK(cudaFree(d) == cudaSuccess);
#if CUGUARD_IMPL_EMULATION
  // Where CUDA's behaviour is undefined or a crash, emulation answers with an error.
  CHECK(cudaFree(d) == cudaErrorInvalidValue); // twice
  CHECK(cudaFree(h) == cudaErrorInvalidValue); // never allocated
  CHECK(cudaStreamCreate(nullptr) == cudaErrorInvalidValue);
#endif
  (void)cudaGetLastError();
}

#if CUGUARD_IMPL_EMULATION
TEST_CASE("under emulation a copy or memset that runs past its allocation is cudaErrorInvalidValue") {
  char* d = nullptr;
  REQUIRE(cudaMalloc(&d, 100) == cudaSuccess);
  std::vector<char> h(200, 'x');
  CHECK(cudaMemcpy(d, h.data(), 100, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(d, h.data(), 101, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(d + 50, h.data(), 51, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(h.data(), d + 99, 2, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(cudaMemset(d + 1, 0, 100) == cudaErrorInvalidValue);
  CHECK(cudaMemsetAsync(d, 0, 100, nullptr) == cudaSuccess);
  // A host-to-device copy whose destination is not device memory.
  CHECK(cudaMemcpy(h.data() + 100, h.data(), 10, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(h.data() + 100, h.data(), 10, cudaMemcpyHostToHost) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
  // Freed memory is no longer device memory.
  CHECK(cudaMemcpy(d, h.data(), 1, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
}

TEST_CASE("under emulation a destroyed stream or event is cudaErrorInvalidResourceHandle") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamSynchronize(s) == cudaErrorInvalidResourceHandle);
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 4) == cudaSuccess);
  int one = 1;
  CHECK(cudaMemcpyAsync(d, &one, 4, cudaMemcpyHostToDevice, s) == cudaErrorInvalidResourceHandle);
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreate(&e) == cudaSuccess);
  CHECK(cudaEventDestroy(e) == cudaSuccess);
  CHECK(cudaEventRecord(e, nullptr) == cudaErrorInvalidResourceHandle);
  CHECK(cudaFree(d) == cudaSuccess);
  (void)cudaGetLastError();
}
#endif

TEST_CASE("streams, events and async copies run a pipeline") {
  constexpr int n = 1024, part = n / 2;
  int *h = nullptr, *d = nullptr;
  REQUIRE(cudaMallocHost(&h, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < n; ++i) h[i] = 3 * i;
  cudaStream_t s[2];
  for (auto& x : s) REQUIRE(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t start = nullptr, stop = nullptr, untimed = nullptr;
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle); // neither recorded yet
  REQUIRE(cudaEventRecord(start, s[0]) == cudaSuccess);
  for (int c = 0; c < 2; ++c) {
    REQUIRE(cudaMemcpyAsync(d + c * part, h + c * part, part * sizeof(int), cudaMemcpyHostToDevice, s[c]) == cudaSuccess);
    cuguard::launch({part / 64, 64, 0, s[c]}, device_tests::add_one, cuguard::make_view(d + c * part, {part}, "d"));
    REQUIRE(cudaMemcpyAsync(h + c * part, d + c * part, part * sizeof(int), cudaMemcpyDeviceToHost, s[c]) == cudaSuccess);
  }
  REQUIRE(cudaEventRecord(untimed, s[1]) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s[0], untimed, 0) == cudaSuccess);
  REQUIRE(cudaEventRecord(stop, s[0]) == cudaSuccess);
  REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
  CHECK(cudaEventQuery(stop) == cudaSuccess);
  CHECK(cudaStreamQuery(s[1]) == cudaSuccess);
  REQUIRE(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  CHECK(ms >= 0.0f);
  CHECK(cudaEventElapsedTime(&ms, start, untimed) == cudaErrorInvalidResourceHandle);
  cuguard::check();
  for (int i = 0; i < n; i += 97) CHECK(h[i] == 3 * i + 1);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  for (auto& x : s) CHECK(cudaStreamDestroy(x) == cudaSuccess);
  for (auto ev : {start, stop, untimed}) CHECK(cudaEventDestroy(ev) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
  CHECK(cudaFreeHost(h) == cudaSuccess);
  (void)cudaGetLastError();
}

TEST_CASE("the device's properties are those a kernel may rely on") {
  cudaDeviceProp p;
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  CHECK(p.warpSize == 32);
  CHECK(p.maxThreadsPerBlock == 1024);
  CHECK(p.multiProcessorCount >= 1);
  CHECK(p.totalGlobalMem > 0);
  int sms = 0, device = -1;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
  CHECK(sms == p.multiProcessorCount);
  std::size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
  CHECK(free_bytes <= total_bytes);
}

#if CUGUARD_IMPL_CHECKS
TEST_CASE("memory from cudaMalloc is device memory to views; under emulation, used after cudaFree is reported") {
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 16 * sizeof(float)) == cudaSuccess);
  const auto v = cuguard::make_view(d, {16}, "weights");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)static_cast<float>(v[3])); // host code reading device memory
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::wrong_memory_space);
  CHECK(std::string(c.report.label) == "weights");

  REQUIRE(cudaFree(d) == cudaSuccess);
#  if CUGUARD_IMPL_EMULATION
  // A view made after the free is of memory that is no longer device memory: a host pointer.
  CUGUARD_TEST_CATCH(c, cuguard::launch(device_tests::add_one, 1, 16, cuguard::make_view(reinterpret_cast<int*>(d), {16}, "stale")));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::wrong_memory_space);
#  endif

#  if CUGUARD_IMPL_EMULATION
  // libcudart's cudaFree tells cuguard nothing: only the emulated one releases the allocation.
  int* h = nullptr;
  REQUIRE(cudaMalloc(&h, 16 * sizeof(int)) == cudaSuccess);
  const auto before = cuguard::make_view(h, {16}, "hidden");
  REQUIRE(cudaFree(h) == cudaSuccess);
  CUGUARD_TEST_CATCH(c, cuguard::launch(device_tests::add_one, 1, 16, before));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::use_after_free);
  CHECK(c.what.find("allocation 'cudaMalloc' (64 bytes) was released") != std::string::npos);
  CHECK(c.what.find("\n  released at cudaFree") != std::string::npos);
#  endif
}

TEST_CASE("managed memory is for host code and kernels alike") {
  int* m = nullptr;
  REQUIRE(cudaMallocManaged(&m, 8 * sizeof(int), cudaMemAttachGlobal) == cudaSuccess);
  const auto v = cuguard::make_view(m, {8}, "managed");
  for (int i = 0; i < 8; ++i) v[i] = i;
  cuguard::launch(device_tests::add_one, 1, 8, v);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  cuguard::check();
  CHECK(static_cast<int>(v[7]) == 8);
  CHECK(cudaFree(m) == cudaSuccess);
}
#endif

#if CUGUARD_EMULATION && CUGUARD_IMPL_CHECKS
#  include <cstdio>
#  include <unistd.h>

namespace device_tests {
__global__ void write_past(cuguard::checked_view<int, 1> v) { v[static_cast<int>(threadIdx.x) + 4] = 1; }

using device_test_support::stderr_of;
} // namespace device_tests

TEST_CASE("a report no check() read is printed at the next synchronizing call, and check() still throws it") {
  cuguard::device_buffer<int> buf(4, "buf");
  cuguard::launch(device_tests::write_past, 1, 2, buf.view());
  const std::string printed = device_tests::stderr_of([] { CHECK(cudaDeviceSynchronize() == cudaSuccess); });
  CHECK(printed.find("cuguard: out-of-bounds access to 'buf' int32[4] at (") != std::string::npos);
  CHECK(printed.find("(found at cudaDeviceSynchronize in ") != std::string::npos);
  // Printed once: the next synchronizing call has nothing to print.
  CHECK(device_tests::stderr_of([] { CHECK(cudaStreamSynchronize(nullptr) == cudaSuccess); }).empty());
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(std::string(c.report.label) == "buf");
  CHECK_FALSE(device_test_support::checked().thrown);
}
#endif
