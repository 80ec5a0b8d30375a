// A CUDA program as written for nvcc: runtime API calls, a stream, an event, async copies, and a
// kernel with one access out of bounds. Built with nvcc, and unchanged under emulation
// (cuguard_emulate). Exit status 0: the data came back and the report named this file's line.
#include <cuguard/cuguard.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void shift(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out, int by) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.extent(0)) out[i] = in[i + by]; // the access the report names
}

int main() {
#if CUGUARD_EMULATION == 0
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 77; // no GPU: skipped
#endif
  constexpr int n = 256;
  int *h = nullptr, *d_in = nullptr, *d_out = nullptr;
  cudaStream_t s;
  cudaEvent_t done;
  if (cudaMallocHost(&h, n * sizeof(int)) != cudaSuccess || cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_out, n * sizeof(int)) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess ||
      cudaEventCreate(&done) != cudaSuccess)
    return 1;
  for (int i = 0; i < n; ++i) h[i] = i;
  const auto in = cuguard::make_view(static_cast<const int*>(d_in), {n}, "in");
  const auto out = cuguard::make_view(d_out, {n}, "out");
  if (cudaMemcpyAsync(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice, s) != cudaSuccess) return 1;
  cuguard::launch({n / 64, 64, 0, s}, shift, in, out, 0);
  if (cudaMemcpyAsync(h, d_out, n * sizeof(int), cudaMemcpyDeviceToHost, s) != cudaSuccess) return 1;
  if (cudaEventRecord(done, s) != cudaSuccess || cudaEventSynchronize(done) != cudaSuccess) return 1;
  cuguard::check();
  if (h[n - 1] != n - 1) return 1;

  bool named = false;
  try {
    cuguard::launch({n / 64, 64, 0, s}, shift, in, out, 1); // the last thread reads in[256]
    cuguard::check(s);
  } catch (const cuguard::violation_error& e) {
    named = std::strstr(e.what(), "'in'") != nullptr && std::strstr(e.what(), "program.cu:13") != nullptr;
    std::printf("%s\n", e.what());
  }
  cudaEventDestroy(done);
  cudaStreamDestroy(s);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFreeHost(h);
  return named && cudaGetLastError() == cudaSuccess ? 0 : 1;
}
