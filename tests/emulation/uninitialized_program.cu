// SPDX-License-Identifier: Apache-2.0
// A CUDA program as it is written for nvcc, with what compute-sanitizer's initcheck finds: a
// kernel that reads device memory a cudaMemset covered only part of (its size is missing
// `* sizeof(int)`), one that reads an element whose last byte nothing wrote, and an allocation
// nothing ever used. Built unchanged by cuguard_emulate(... SANITIZE): each is reported, naming
// the allocation, the offset, the thread and the line. `uninitialized_program correct` writes
// everything it reads (memsets, copies, kernel stores of ints and float4s, atomics) and frees
// every allocation: nothing is reported, under every schedule (tests/device/CMakeLists.txt).
#include <cstdio>
#include <cstring>

constexpr int n = 64;

__global__ void add_index(int* v) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  v[i] += i;
}

__global__ void twice(const int* a, int* b) { b[threadIdx.x] = 2 * a[threadIdx.x]; }

// Thread i stores float4 i; then (after a barrier) reads its neighbour's, and counts itself.
__global__ void float4_round(float4* v, int* count) {
  const int i = threadIdx.x;
  v[i] = make_float4(i, i, i, i);
  __syncthreads();
  const float4 next = v[(i + 1) % blockDim.x];
  atomicAdd(count, static_cast<int>(next.x) >= 0 ? 1 : 0);
}

int racy() {
  int* v = nullptr;
  int* a = nullptr;
  int* b = nullptr;
  int* unused = nullptr;
  if (cudaMalloc(&v, n * sizeof(int)) != cudaSuccess || cudaMalloc(&a, 4 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&b, 4 * sizeof(int)) != cudaSuccess || cudaMalloc(&unused, 128) != cudaSuccess)
    return 1;
  cudaMemset(v, 0, n); // not n * sizeof(int): a quarter of v
  add_index<<<2, n / 2>>>(v);
  cudaDeviceSynchronize();
  cudaMemset(a, 0, 4 * sizeof(int) - 1); // all but the last byte
  twice<<<1, 4>>>(a, b);
  cudaDeviceSynchronize();
  std::printf("racy kernels ran\n");
  cudaFree(unused);
  cudaFree(v);
  cudaFree(a);
  cudaFree(b);
  return 0;
}

int correct() {
  int* v = nullptr;
  int* a = nullptr;
  int* b = nullptr;
  int* count = nullptr;
  float4* f = nullptr;
  if (cudaMalloc(&v, n * sizeof(int)) != cudaSuccess || cudaMalloc(&a, 4 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&b, 4 * sizeof(int)) != cudaSuccess || cudaMalloc(&count, sizeof(int)) != cudaSuccess ||
      cudaMalloc(&f, 32 * sizeof(float4)) != cudaSuccess)
    return 1;
  cudaMemset(v, 0, n * sizeof(int));
  add_index<<<2, n / 2>>>(v);
  const int host[4] = {1, 2, 3, 4};
  cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
  twice<<<1, 4>>>(a, b);       // b: written by a kernel
  cudaMemcpy(a, b, sizeof host, cudaMemcpyDeviceToDevice);
  twice<<<1, 4>>>(a, b);       // reads what the copy wrote
  cudaMemset(count, 0, sizeof(int));
  float4_round<<<1, 32>>>(f, count);
  int out[4] = {0, 0, 0, 0}, counted = 0, last = 0;
  cudaMemcpy(out, b, sizeof out, cudaMemcpyDeviceToHost);
  cudaMemcpy(&counted, count, sizeof counted, cudaMemcpyDeviceToHost);
  cudaMemcpy(&last, v + n - 1, sizeof last, cudaMemcpyDeviceToHost);
  std::printf("b: %d %d %d %d, counted %d, v[%d] = %d\n", out[0], out[1], out[2], out[3], counted, n - 1, last);
  std::printf("correct kernels ran\n");
  cudaFree(v);
  cudaFree(a);
  cudaFree(b);
  cudaFree(count);
  cudaFree(f);
  return 0;
}

int main(int argc, char** argv) { return argc > 1 && std::strcmp(argv[1], "correct") == 0 ? correct() : racy(); }
