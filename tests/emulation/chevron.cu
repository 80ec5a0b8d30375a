// SPDX-License-Identifier: Apache-2.0
// A .cu file as nvcc builds it, built unchanged under emulation by cuguard_emulate: <<<>>> launches
// (a template kernel, a kernel of an anonymous namespace, a launch inside a lambda, dynamic shared
// memory and a stream), extern __shared__ arrays in a kernel and at namespace scope, and reports
// that name this file, its lines and the function that launched.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

extern __shared__ float file_scope_tile[];

namespace {

// Reverses each block's part of `v` through dynamic shared memory.
template <typename T>
__global__ void reverse_blocks(cuguard::checked_view<T, 1> v) {
  extern __shared__ __align__(16) unsigned char raw_tile[];
  T* tile = reinterpret_cast<T*>(raw_tile);
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  tile[threadIdx.x] = v[i];
  __syncthreads();
  v[i] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void scale(cuguard::checked_view<float, 1> v, float by, int past) {
  file_scope_tile[threadIdx.x] = by;
  __syncthreads();
  const int i = static_cast<int>(threadIdx.x) + past;
  v[i] = v[static_cast<int>(threadIdx.x)] * file_scope_tile[blockDim.x - 1 - threadIdx.x]; // chevron-test-write
}

template <class F>
void run(F&& f) {
  f();
}

int launch_line = 0;

void scale_in_a_lambda(cuguard::checked_view<float, 1> v, int past) {
  run([&] {
    launch_line = __LINE__ + 1;
    scale<<<1, 8, 8 * sizeof(float)>>>(v, 2.0f, past);
  });
}

__global__ void fill(cuguard::checked_view<float, 1> v, float value) { v[static_cast<int>(threadIdx.x)] = value; }
__global__ void fill_twice(cuguard::checked_view<float, 1> v, float value) {
  v[static_cast<int>(threadIdx.x)] = 2 * value;
}

} // namespace

TEST_CASE("a <<<>>> launch runs a kernel given by a local pointer or by an expression") {
  cuguard::device_buffer<float> buf(8, "values");
  float host[8] = {};
  for (const bool twice : {false, true}) {
    void (*const kernel)(cuguard::checked_view<float, 1>, float) = twice ? fill_twice : fill;
    kernel<<<1, 8>>>(buf.view(), 3.0f);
    cuguard::check();
    buf.copy_to_host(host, 8);
    CHECK(host[7] == (twice ? 6.0f : 3.0f));
    (twice ? fill : fill_twice)<<<1, 8>>>(buf.view(), 5.0f);
    cuguard::check();
    buf.copy_to_host(host, 8);
    CHECK(host[0] == (twice ? 5.0f : 10.0f));
  }
}

TEST_CASE("a <<<>>> launch runs a template kernel with dynamic shared memory on a stream") {
  cuguard::device_buffer<float> buf(64, "values");
  float host[64];
  for (int i = 0; i < 64; ++i) host[i] = static_cast<float>(i);
  buf.copy_from_host(host, 64);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  reverse_blocks<float><<<dim3(2), dim3(32), 32 * sizeof(float), stream>>>(buf.view());
  cuguard::check(stream);
  buf.copy_to_host(host, 64);
  CHECK(host[0] == 31.0f);
  CHECK(host[31] == 0.0f);
  CHECK(host[32] == 63.0f);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("a <<<>>> launch in a lambda reports this file's line and the function that launched") {
  cuguard::device_buffer<float> buf(8, "values");
  float host[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  buf.copy_from_host(host, 8);
  scale_in_a_lambda(buf.view(), 0);
  cuguard::check();
  buf.copy_to_host(host, 8);
  CHECK(host[7] == 2.0f);
  scale_in_a_lambda(buf.view(), 1);
  const auto c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(std::string(c.report.file).find("tests/emulation/chevron.cu") != std::string::npos);
  CHECK(std::string(c.report.launch.kernel) == "(anonymous namespace)::scale");
  CHECK(c.report.launch.site.line == static_cast<unsigned>(launch_line));
  CHECK(std::string(c.report.launch.site.function) == "{anonymous}::scale_in_a_lambda");
  CHECK(c.what.find("tests/emulation/chevron.cu:" + std::to_string(launch_line) + " in {anonymous}::scale_in_a_lambda") !=
        std::string::npos);
}
