// SPDX-License-Identifier: Apache-2.0
// A caching allocator's trace, as PyTorch's CUDA caching allocator gives it to cuguard::torch
// (detail/adapters/torch_storage.hpp): one cudaMalloc segment, two blocks handed out of it (99
// floats, then 128 floats 512 bytes on). Built by cuguard_emulate(... SANITIZE) and run with
// CUGUARD_NVTX_POOLS=1: an unchanged kernel's store one past the first block, into the
// segment's bytes no block holds, is what compute-sanitizer reports from NVTX's pool annotations
// (a cudaMalloc'd segment alone hides it); a kernel taking cuguard::ptr<float> reports its store
// one past the first block with the block's bounds; `pooled_program correct` stays in bounds.
#include <cuguard/cuguard.hpp>
#include <cuguard/detail/runtime/allocator_trace.hpp>

#include <cstdio>
#include <cstring>

__global__ void store_raw(float* out, int n) { out[threadIdx.x] = static_cast<float>(n); }
__global__ void store_checked(cuguard::ptr<float> out, int n) { out[threadIdx.x] = static_cast<float>(n); }

int main(int argc, char** argv) {
  const bool correct = argc > 1 && std::strcmp(argv[1], "correct") == 0;
  unsigned char* segment = nullptr;
  if (cudaMalloc(&segment, 2048) != cudaSuccess) return 1;
  auto& trace = cuguard::detail::allocator_trace::get();
  const auto base = reinterpret_cast<std::uintptr_t>(segment);
  trace.segment(base, 2048, 0, true);
  trace.block(base, 99 * sizeof(float), 0, true);
  trace.block(base + 512, 128 * sizeof(float), 0, true);
  float* first = reinterpret_cast<float*>(segment);
  const unsigned threads = correct ? 99 : 100; // the last one past the first block
  store_raw<<<1, threads>>>(first, 1);
  cudaDeviceSynchronize();
  store_checked<<<1, threads>>>(first, 2);
  cudaDeviceSynchronize(); // (each report is printed at the first synchronizing call after its kernel)
  trace.block(base + 512, 128 * sizeof(float), 0, false);
  trace.block(base, 99 * sizeof(float), 0, false);
  trace.segment(base, 2048, 0, false);
  cudaFree(segment);
  std::printf("%s\n", correct ? "correct pooled kernels ran" : "pooled kernels ran");
  return 0;
}
