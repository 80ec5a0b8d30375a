// SPDX-License-Identifier: Apache-2.0
// A CUDA program as it is written for nvcc, whose kernels share data through raw `__shared__`
// arrays and dynamic shared memory, with the hazards compute-sanitizer's racecheck finds: a
// block-level one (no __syncthreads() between the stores and the reads of another warp), a
// warp-level one (no __syncwarp()), two threads storing to one element of dynamic shared
// memory, and a block-level one at constant indices (`pair[1]`). Built unchanged by
// cuguard_emulate(... SANITIZE): each is reported, naming the array, the element, both threads
// and the barrier that orders them. `racing_program correct` runs the
// same kernels with their barriers, an atomic counter in shared memory, and every thread of a
// block copying one table into shared memory (the same values from each thread, in any order):
// nothing is reported, under every schedule (tests/device/CMakeLists.txt).
#include <cstdio>
#include <cstring>

constexpr int threads = 64;
__shared__ int partial[threads];

// Thread 0 sums what every thread stored, with a barrier between where `sync` says so.
__global__ void block_sum(const int* in, int* out, bool sync) {
  const int t = threadIdx.x;
  partial[t] = in[t];
  if (sync) __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int i = 0; i < threads; ++i) sum += partial[i];
    *out = sum;
  }
}

// Lane 0 of one warp sums its lanes' values, with a __syncwarp() between where `sync` says so.
__global__ void warp_sum(const float* in, float* out, bool sync) {
  __shared__ float lanes[32];
  const int lane = threadIdx.x;
  lanes[lane] = in[lane];
  if (sync) __syncwarp();
  if (lane == 0) {
    float sum = 0;
    for (int i = 0; i < 32; ++i) sum += lanes[i];
    *out = sum;
  }
}

// Threads 0 and 1 both store to element 0 of the dynamic shared memory (`race`), or each to its
// own; then a barrier, and thread 0 copies the elements out.
__global__ void dynamic_store(int* out, bool race) {
  extern __shared__ int tile[];
  tile[race ? 0 : threadIdx.x] = static_cast<int>(threadIdx.x) + 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    out[0] = tile[0];
    out[1] = race ? 0 : tile[1];
  }
}

// Lane 0 of each of two warps stores its element of `pair`; thread 0 adds them, at constant
// indices, with a barrier between where `sync` says so.
__global__ void pair_sum(int* out, bool sync) {
  __shared__ int pair[2];
  if (threadIdx.x % 32 == 0) pair[threadIdx.x / 32] = static_cast<int>(threadIdx.x) + 1;
  if (sync) __syncthreads();
  if (threadIdx.x == 0) *out = pair[0] + pair[1];
}

// Every thread counts itself in a shared counter by atomicAdd: atomics race with nothing.
__global__ void count_threads(int* out) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0) *out = count;
}

// Every thread copies the same `n` offsets into dynamic shared memory, then, after the barrier,
// adds them up: stores of the values an element holds already race with nothing.
__global__ void shared_table(const int* offsets, int n, int* out) {
  extern __shared__ int table[];
  for (int i = 0; i < n; ++i) table[i] = offsets[i];
  __syncthreads();
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += table[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main(int argc, char** argv) {
  const bool correct = argc > 1 && std::strcmp(argv[1], "correct") == 0;
  int host[threads];
  for (int i = 0; i < threads; ++i) host[i] = i;
  float lanes[32];
  for (int i = 0; i < 32; ++i) lanes[i] = 1.0f;
  int* in = nullptr;
  int* out = nullptr;
  float* fin = nullptr;
  float* fout = nullptr;
  if (cudaMalloc(&in, sizeof host) != cudaSuccess || cudaMalloc(&out, 2 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&fin, sizeof lanes) != cudaSuccess || cudaMalloc(&fout, sizeof(float)) != cudaSuccess)
    return 1;
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemcpy(fin, lanes, sizeof lanes, cudaMemcpyHostToDevice);
  int sums[2] = {0, 0};
  float warp = 0;
  block_sum<<<1, threads>>>(in, out, correct);
  cudaMemcpy(sums, out, sizeof(int), cudaMemcpyDeviceToHost);
  warp_sum<<<1, 32>>>(fin, fout, correct);
  cudaMemcpy(&warp, fout, sizeof warp, cudaMemcpyDeviceToHost);
  dynamic_store<<<1, 2, 2 * sizeof(int)>>>(out, !correct);
  cudaDeviceSynchronize();
  int pair_total = 0;
  if (correct) {
    std::printf("block sum %d, warp sum %g\n", sums[0], warp);
    cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
    std::printf("dynamic: %d %d\n", sums[0], sums[1]);
  }
  pair_sum<<<1, 64>>>(out, correct);
  cudaMemcpy(&pair_total, out, sizeof pair_total, cudaMemcpyDeviceToHost);
  if (correct) {
    std::printf("pair sum %d\n", pair_total);
    count_threads<<<2, 96>>>(out);
    cudaMemcpy(sums, out, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("counted %d threads\n", sums[0]);
    int* each = nullptr;
    if (cudaMalloc(&each, 2 * threads * sizeof(int)) != cudaSuccess) return 1;
    shared_table<<<2, threads, 36 * sizeof(int)>>>(in, 36, each);
    int first = 0, last = 0;
    cudaMemcpy(&first, each, sizeof first, cudaMemcpyDeviceToHost);
    cudaMemcpy(&last, each + 2 * threads - 1, sizeof last, cudaMemcpyDeviceToHost);
    std::printf("table sums %d %d\n", first, last);
    cudaFree(each);
  }
  std::printf("%s kernels ran\n", correct ? "correct" : "racing");
  cudaFree(in);
  cudaFree(out);
  cudaFree(fin);
  cudaFree(fout);
  return 0;
}
