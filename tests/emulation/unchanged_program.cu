// SPDX-License-Identifier: Apache-2.0
// A CUDA program as it is written for nvcc: raw pointers, <<<>>> launches, the runtime API, and
// not one call of cuguard's. Built unchanged by cuguard_emulate, what the scheduler finds in its
// kernels is printed: at the first synchronizing call after the kernel, and at exit for what no
// call read. The test (tests/device/CMakeLists.txt) matches both reports in its output.
#include <cstdio>

#define CHECK_CUDA(call)                                                                    \
  do {                                                                                      \
    const cudaError_t status_ = (call);                                                     \
    if (status_ != cudaSuccess) {                                                           \
      std::printf("%s failed: %s\n", #call, cudaGetErrorString(status_));                   \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)

// Lanes 0 to 16 meet at a __syncwarp() whose mask is the first 16 lanes': lane 16 is outside it.
__global__ void sum_first_half(int* sum) {
  __shared__ int cells[32];
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned mask = __ballot_sync(0xffffffffu, lane < 16);
  if (lane <= 16) {
    cells[lane] = lane;
    __syncwarp(mask);
    if (lane == 0) {
      int s = 0;
      for (int i = 0; i < 16; ++i) s += cells[i];
      *sum = s;
    }
  }
  __syncthreads();
}

// The upper half of the block returns before the barrier the lower half waits at.
__global__ void early_return(int* out) {
  if (threadIdx.x >= 32) return;
  __syncthreads();
  out[threadIdx.x] = static_cast<int>(threadIdx.x);
}

int main() {
  int* sum = nullptr;
  int* out = nullptr;
  CHECK_CUDA(cudaMalloc(&sum, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&out, 64 * sizeof(int)));
  sum_first_half<<<1, 32>>>(sum);
  CHECK_CUDA(cudaDeviceSynchronize());
  int host = 0;
  CHECK_CUDA(cudaMemcpy(&host, sum, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("sum of the first half: %d\n", host);
  early_return<<<1, 64>>>(out);
  CHECK_CUDA(cudaFree(sum));
  CHECK_CUDA(cudaFree(out));
  return 0; // nothing synchronizes after early_return: its report is printed at exit
}
