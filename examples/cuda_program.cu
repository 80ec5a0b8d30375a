// SPDX-License-Identifier: Apache-2.0
// A whole CUDA program as it is written for nvcc: pinned host buffers, cudaMalloc, two streams
// with async copies in and out, events timing the pipeline, errors checked at every call. The
// kernels take checked views; the pipeline launches them with <<<>>>, the last launch is
// cuguard::launch's (which checks its view arguments before the kernel runs). One CMakeLists
// builds it with nvcc (cuda_program.gpu) and, unchanged, with the host compiler under emulation
// (cuda_program: cuguard_emulate). `cuda_program --use-after-free` frees a buffer before the
// last launch; the report names it.
#include <cuguard/cuguard.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#define CUDA_CHECK(call)                                                                                  \
  do {                                                                                                    \
    const cudaError_t status_ = (call);                                                                   \
    if (status_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_), \
                   cudaGetErrorName(status_));                                                            \
      return 1;                                                                                           \
    }                                                                                                     \
  } while (0)

// y = a * x + y over one chunk.
__global__ void axpy(float a, cuguard::checked_view<const float, 1> x, cuguard::checked_view<float, 1> y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < y.extent(0)) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const bool use_after_free = argc > 1 && std::strcmp(argv[1], "--use-after-free") == 0;
  constexpr int n = 1 << 14, chunks = 2, chunk = n / chunks, threads = 256;

  float *h_x = nullptr, *h_y = nullptr, *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_y, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    h_x[i] = static_cast<float>(i);
    h_y[i] = 1.0f;
  }

  cudaStream_t streams[chunks];
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  CUDA_CHECK(cudaEventRecord(start, streams[0]));
  for (int c = 0; c < chunks; ++c) {
    const std::size_t offset = static_cast<std::size_t>(c) * chunk, bytes = chunk * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(d_x + offset, h_x + offset, bytes, cudaMemcpyHostToDevice, streams[c]));
    CUDA_CHECK(cudaMemcpyAsync(d_y + offset, h_y + offset, bytes, cudaMemcpyHostToDevice, streams[c]));
    const auto x = cuguard::make_view(static_cast<const float*>(d_x + offset), {chunk}, "x");
    const auto y = cuguard::make_view(d_y + offset, {chunk}, "y");
    axpy<<<(chunk + threads - 1) / threads, threads, 0, streams[c]>>>(2.0f, x, y);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y + offset, d_y + offset, bytes, cudaMemcpyDeviceToHost, streams[c]));
  }
  CUDA_CHECK(cudaEventRecord(stop, streams[chunks - 1]));
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cuguard::check();

  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += std::fabs(h_y[i] - (2.0f * static_cast<float>(i) + 1.0f)) > 0.0f;
  std::printf("axpy over %d streams: %d of %d elements right (%s)\n", chunks, n - wrong, n,
              ms >= 0.0f ? "timed with events" : "negative event time");

  int status = wrong == 0 ? 0 : 1;
  if (use_after_free) {
    const auto y = cuguard::make_view(d_y, {n}, "y");
    CUDA_CHECK(cudaFree(d_y)); // released before the launch that uses it
    d_y = nullptr;
    try {
      cuguard::launch({n / threads, threads, 0, streams[0]}, axpy, 2.0f, cuguard::make_view(static_cast<const float*>(d_x), {n}, "x"), y);
      cuguard::check();
      std::printf("no report\n");
      status = 1;
    } catch (const cuguard::violation_error& e) {
      std::printf("%s\n", e.what());
    }
  }

  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  return status;
}
