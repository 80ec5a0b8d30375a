// SPDX-License-Identifier: Apache-2.0
// A CUDA program as it is written for nvcc whose kernel stores through a wild pointer in one
// thread. Built unchanged by cuguard_emulate (without SANITIZE), the fault is a report, not a
// crash: the thread that faulted stops, the others finish, and the report names the address,
// the thread, the function and the launch. The test (tests/device/CMakeLists.txt) matches it.
#include <cstdint>
#include <cstdio>

__device__ void store(int* p, int v) { *p = v; }

// Thread 3 stores through an address nothing maps; the others into their element.
__global__ void wild_store(int* out) {
  const int i = static_cast<int>(threadIdx.x);
  int* target = i == 3 ? reinterpret_cast<int*>(std::uintptr_t{0x87654320}) : out + i;
  store(target, 10 * i);
}

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 8 * sizeof(int)) != cudaSuccess || cudaMemset(out, 0, 8 * sizeof(int)) != cudaSuccess) return 1;
  wild_store<<<1, 8>>>(out);
  int host[8] = {};
  if (cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  std::printf("threads other than 3 stored:");
  for (int v : host) std::printf(" %d", v);
  std::printf("\n");
  return cudaFree(out) == cudaSuccess ? 0 : 1;
}
