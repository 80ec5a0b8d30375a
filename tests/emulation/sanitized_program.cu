// SPDX-License-Identifier: Apache-2.0
// A CUDA program as it is written for nvcc, with the bugs compute-sanitizer's memcheck and
// leakcheck find: a misaligned store and a store past a cudaMalloc block, through raw pointers,
// stores far past one and into a freed one (each reported before it happens), a
// host store past a managed block, a runtime call that fails, and an allocation never freed. Built unchanged by cuguard_emulate(... SANITIZE): each is
// reported, with the CUDA context cuguard adds. The test (tests/device/CMakeLists.txt) matches
// the reports in its output.
#include <cstdio>

// Thread 0 stores an int one byte into the buffer.
__global__ void misaligned_store(int* p) { *reinterpret_cast<int*>(reinterpret_cast<char*>(p) + 1) = 42; }

// Each thread stores its number; the grid has one thread more than the buffer has elements.
__global__ void one_past(int* p) { p[threadIdx.x] = static_cast<int>(threadIdx.x); }

// Stores a byte `past` bytes past the end of the 64 bytes at `p`.
__global__ void far_store(char* p, long long past) { p[64 + past] = 1; }

int main() {
  int* a = nullptr;
  int* b = nullptr;
  int* kept = nullptr;
  if (cudaMalloc(&a, 16 * sizeof(int)) != cudaSuccess || cudaMalloc(&b, 16 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&kept, 8 * sizeof(int)) != cudaSuccess)
    return 1;
  misaligned_store<<<1, 1>>>(a);
  one_past<<<1, 17>>>(b);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::printf("both kernels ran\n");
  // Far past a block: each store is reported before it happens (none lands in other memory).
  for (long long past : {10LL, 1LL << 10, 1LL << 20, 1LL << 28}) {
    far_store<<<1, 1>>>(reinterpret_cast<char*>(a), past);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  }
  char* gone = nullptr;
  if (cudaMalloc(&gone, 64) != cudaSuccess || cudaFree(gone) != cudaSuccess) return 1;
  far_store<<<1, 1>>>(gone, -64); // into a freed block
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::printf("far stores ran\n");
  // Host code's store past a managed block: AddressSanitizer's report.
  int* managed = nullptr;
  if (cudaMallocManaged(&managed, 16 * sizeof(int)) != cudaSuccess) return 1;
  managed[16] = 1;
  cudaFree(managed);
  // A copy that runs past its allocation: CUDA's error, which SANITIZE prints with its caller.
  if (cudaMemcpy(a, b, 1024 * sizeof(int), cudaMemcpyDeviceToDevice) != cudaErrorInvalidValue) return 1;
  cudaFree(a);
  cudaFree(b);
  return 0; // `kept` is never freed: leakcheck lists it at exit
}
