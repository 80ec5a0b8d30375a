// A program written as NVIDIA's samples write theirs: helper_cuda.h-style error checks and
// device choice, the occupancy API, symbols, host registration, stream callbacks, the default
// memory pool, the integer intrinsics and scoped atomics, a kernel with a default argument, a
// launch in a header, a host .cpp that defines its own umin and max, inline PTX, a cuda::barrier
// with cuda::memcpy_async, and a thread that polls a flag another warp sets. Built unchanged by
// cuguard_emulate (plain and SANITIZE). `samples_program` checks its own results and
// prints PASSED; `samples_program assert` fails a device assert(); `samples_program overrun`
// stores one element past a cudaMalloc block.
#include <cuda_profiler_api.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "samples/reverse.cuh"

unsigned int host_helper(unsigned int a, unsigned int b); // samples/host_helpers.cpp

#include "samples/check.h"

__device__ int scale;
__constant__ int offsets[4];

// The device with the most cores, as the samples' gpuGetMaxGflopsDeviceId picks it.
int pick_device() {
  int count = 0, best = -1;
  long long best_rate = -1;
  CHECK(cudaGetDeviceCount(&count));
  for (int d = 0; d < count; ++d) {
    int mode = -1, major = 0, sms = 0, clock = 0, overlap = 0, integrated = 0;
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, d));
    CHECK(cudaDeviceGetAttribute(&overlap, cudaDevAttrGpuOverlap, d));
    CHECK(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, d));
    const long long rate = static_cast<long long>(sms) * clock;
    if (mode != cudaComputeModeProhibited && major >= 1 && rate > best_rate) best = d, best_rate = rate;
  }
  return best;
}

__global__ void scaled(int* out, int n, int add = 7) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * scale + offsets[i % 4] + add;
}

// Device code that nvcc's device pass selects with __CUDA_ARCH__ (the samples' reduction, simpleAWBarrier).
#if __CUDA_ARCH__ >= 800
__device__ int warp_total(int value) { return __reduce_add_sync(0xffffffffu, value); }
#endif
__global__ void arch_gated(int* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  int all = 0;
  const unsigned same = __match_any_sync(0xffffffffu, threadIdx.x % 3), every = __match_all_sync(0xffffffffu, 5, &all);
  out[threadIdx.x] = warp_total(static_cast<int>(threadIdx.x)) + (same == 0x49249249u << threadIdx.x % 3 ? 1000 : 0) +
                     (every == 0xffffffffu && all == 1 ? 10000 : 0);
#endif
}

// Inline PTX, as the inlinePTX sample writes it: the lane, a shuffle with its predicate, a bit field.
__global__ void inline_ptx(unsigned* out) {
  unsigned lane, down, in_range, field;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("{\n .reg .pred p;\n shfl.sync.down.b32 %0|p, %2, 4, 0x1f, 0xffffffff;\n selp.u32 %1, 1, 0, p;\n}"
               : "=r"(down), "=r"(in_range)
               : "r"(lane * 10));
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(field) : "r"(0xabcdu));
  out[threadIdx.x] = lane * 1000000 + down * 1000 + in_range * 100 + (field == 0xbcu ? 1 : 0);
}

__global__ void counters(unsigned* c, const unsigned* bits, int* mapped) {
  atomicInc(&c[0], 9u);            // wraps to 0 after 9: 64 threads leave 64 % 10 = 4
  atomicDec(&c[1], 100u);          // from 70: 6
  atomicAdd_block(&c[2], 1u);      // 64
  atomicMax_system(&c[3], threadIdx.x);
  atomicCAS(&c[4], 0u, 5u);
  if (threadIdx.x == 0) {
    const unsigned b = bits[0];
    c[5] = __popc(b) + __clz(static_cast<int>(b)) + __ffs(static_cast<int>(b)) + (__brev(b) >> 24) +
           __umul24(b, 3u) + __byte_perm(b, 0u, 0x0123) % 256 + umin(b, 4u) + __umulhi(b, 1u << 31);
    mapped[0] = 42;
  }
}

// simpleAWBarrier's split barrier (arrive, then wait) and globalToShmemAsyncCopy's
// cuda::memcpy_async into shared memory, complete with the barrier's phase; then thread 0 polls,
// with __nanosleep between reads, a flag that the last thread sets: a wait that needs the other
// threads to run. out[t]: in[63 - t] for t > 0; out[0]: the flag plus two warps' partial values.
__global__ void waits(int* out, const int* in) {
#pragma diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int staged[64];
  __shared__ int partial[2];
  __shared__ int flag;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    flag = 0;
  }
  __syncthreads();
  cuda::memcpy_async(&staged[threadIdx.x], &in[threadIdx.x], sizeof(int), bar);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = static_cast<int>(threadIdx.x) + 1;
  auto token = bar.arrive();
  bar.wait(std::move(token));
  if (threadIdx.x > 0) out[threadIdx.x] = staged[63 - threadIdx.x];
  if (threadIdx.x == 0) {
    while (atomicAdd(&flag, 0) == 0) __nanosleep(100);
    out[0] = flag + partial[0] + partial[1];
  }
  if (threadIdx.x == blockDim.x - 1) atomicExch(&flag, 1000);
}

__global__ void asserting(int* out) {
  assert(threadIdx.x != 3);
  out[threadIdx.x] = 1;
}
__global__ void past_the_end(int* out, int n) { out[threadIdx.x] = n; }

void CUDART_CB on_done(cudaStream_t, cudaError_t status, void* flag) { *static_cast<int*>(flag) = status == cudaSuccess ? 1 : -1; }
void CUDART_CB host_step(void* flag) { *static_cast<int*>(flag) += 10; }

int run_planted(const char* which) {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 16 * sizeof(int)));
  if (std::strcmp(which, "assert") == 0) {
    asserting<<<1, 8>>>(d);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("after the assert: %s\n", cudaGetErrorName(e));
    CHECK(cudaDeviceReset());
  } else {
    past_the_end<<<1, 17>>>(d, 16); // one thread too many
    CHECK(cudaDeviceSynchronize());
    std::printf("the overrun ran\n");
  }
  CHECK(cudaFree(d));
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) return run_planted(argv[1]);
  const int device = pick_device();
  CHECK(cudaSetDevice(device));
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, device));
  CHECK(cudaProfilerStart());

  // Symbols, occupancy, attributes, limits.
  const int h_scale = 3, h_offsets[4] = {0, 100, 200, 300};
  CHECK(cudaMemcpyToSymbol(scale, &h_scale, sizeof h_scale));
  CHECK(cudaMemcpyToSymbol(offsets, h_offsets, sizeof h_offsets));
  int read_back = 0;
  CHECK(cudaMemcpyFromSymbol(&read_back, scale, sizeof read_back));
  int per_sm = 0, min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scaled, 256, 0));
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scaled, 0, 0));
  cudaFuncAttributes attributes;
  CHECK(cudaFuncSetAttribute(scaled, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
  CHECK(cudaFuncGetAttributes(&attributes, scaled));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // (the bank size calls: mmcv's filtered_lrelu)
  cudaSharedMemConfig banks = cudaSharedMemBankSizeDefault;
  CHECK(cudaFuncSetSharedMemConfig(scaled, cudaSharedMemBankSizeFourByte));
  CHECK(cudaDeviceGetSharedMemConfig(&banks));
  if (banks != cudaSharedMemBankSizeFourByte) return std::printf("shared memory banks: %d\n", static_cast<int>(banks)), 1;
#pragma GCC diagnostic pop
  CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize));
  size_t stack = 0;
  CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));

  // A kernel with a default argument, on a stream with an L2 access policy window.
  const int n = 1000;
  int* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaStreamAttrValue window{};
  window.accessPolicyWindow.base_ptr = d_out;
  window.accessPolicyWindow.num_bytes = n * sizeof(int);
  window.accessPolicyWindow.hitRatio = 0.6f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window));
  scaled<<<(n + 255) / 256, 256, 0, stream>>>(d_out, n);
  CHECK(cudaGetLastError());
  int done = 0;
  CHECK(cudaStreamAddCallback(stream, on_done, &done, 0));
  CHECK(cudaLaunchHostFunc(stream, host_step, &done));
  CHECK(cudaStreamSynchronize(stream));
  int* h_out = static_cast<int*>(std::malloc(n * sizeof(int)));
  CHECK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = read_back == 3 && per_sm > 0 && block > 0 && attributes.maxDynamicSharedSizeBytes == 64 * 1024 &&
            stack > 0 && done == 11;
  for (int i = 0; i < n; ++i) ok = ok && h_out[i] == i * 3 + h_offsets[i % 4] + 7;

  // Registered host memory, scoped atomics and the integer intrinsics.
  unsigned h_counters[6] = {0, 70, 0, 0, 0, 0}, h_bits = 0x10u;
  unsigned *d_counters = nullptr, *d_bits = nullptr;
  CHECK(cudaMalloc(&d_counters, sizeof h_counters));
  CHECK(cudaMalloc(&d_bits, sizeof h_bits));
  CHECK(cudaMemcpy(d_counters, h_counters, sizeof h_counters, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_bits, &h_bits, sizeof h_bits, cudaMemcpyHostToDevice));
  int* h_mapped = static_cast<int*>(std::malloc(64));
  int* d_mapped = nullptr;
  CHECK(cudaHostRegister(h_mapped, 64, cudaHostRegisterMapped));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_mapped), h_mapped, 0));
  counters<<<1, 64>>>(d_counters, d_bits, d_mapped);
  CHECK(cudaMemcpy(h_counters, d_counters, sizeof h_counters, cudaMemcpyDeviceToHost));
  // 0x10: popc 1, clz 27, ffs 5, brev 0x08000000 >> 24 = 8, umul24 48, byte_perm (bytes reversed) 0x10000000 % 256 = 0,
  // umin 4, umulhi 8
  ok = ok && h_counters[0] == 4 && h_counters[1] == 6 && h_counters[2] == 64 && h_counters[3] == 63 &&
       h_counters[4] == 5 && h_counters[5] == 1 + 27 + 5 + 8 + 48 + 0 + 4 + 8 && h_mapped[0] == 42;
  CHECK(cudaHostUnregister(h_mapped));

  // A launch and an extern __shared__ array in an included header; pitched memory.
  int h_in[64], h_rev[64];
  for (int i = 0; i < 64; ++i) h_in[i] = i;
  int *d_in = nullptr, *d_rev = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d_in), &pitch, 32 * sizeof(int), 2));
  CHECK(cudaMalloc(&d_rev, sizeof h_rev));
  CHECK(cudaMemcpy2D(d_in, 32 * sizeof(int), h_in, 32 * sizeof(int), 32 * sizeof(int), 2, cudaMemcpyHostToDevice));
  reverse_blocks(d_in, d_rev, 2, 32);
  CHECK(cudaMemcpy(h_rev, d_rev, sizeof h_rev, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) ok = ok && h_rev[i] == (i / 32) * 32 + 31 - i % 32;

  unsigned* d_ptx = nullptr;
  CHECK(cudaMalloc(&d_ptx, 64 * sizeof(unsigned)));
  inline_ptx<<<1, 64>>>(d_ptx);
  unsigned h_ptx[64];
  CHECK(cudaMemcpy(h_ptx, d_ptx, sizeof h_ptx, cudaMemcpyDeviceToHost));
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32, from = lane + 4 < 32 ? lane + 4 : lane;
    ok = ok && h_ptx[t] == lane * 1000000 + from * 10 * 1000 + (lane + 4 < 32 ? 100u : 0u) + 1u;
  }
  CHECK(cudaFree(d_ptx));
  arch_gated<<<1, 32>>>(d_rev);
  CHECK(cudaMemcpy(h_rev, d_rev, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) ok = ok && h_rev[i] == 31 * 32 / 2 + 1000 + 10000; // (the matches)
  waits<<<2, 64>>>(d_rev, d_out);
  CHECK(cudaMemcpy(h_rev, d_rev, sizeof h_rev, cudaMemcpyDeviceToHost));
  ok = ok && h_rev[0] == 1000 + 1 + 33;
  for (int t = 1; t < 64; ++t) ok = ok && h_rev[t] == h_out[63 - t];
  ok = ok && host_helper(3u, 8u) == 11u; // samples/host_helpers.cpp: a host source with its own umin and max

  // Stream-ordered allocation from the device's default pool, as streamOrderedAllocation does.
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t threshold = UINT64_MAX, used = 0, after = 0;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  int* d_async = nullptr;
  CHECK(cudaMallocAsync(&d_async, 256 * sizeof(int), stream));
  CHECK(cudaMemsetAsync(d_async, 0, 256 * sizeof(int), stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(cudaFreeAsync(d_async, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &after));
  ok = ok && used >= 256 * sizeof(int) && after < used;

  CHECK(cudaProfilerStop());
  for (void* p : {static_cast<void*>(d_out), static_cast<void*>(d_counters), static_cast<void*>(d_bits),
                  static_cast<void*>(d_in), static_cast<void*>(d_rev)})
    CHECK(cudaFree(p));
  CHECK(cudaStreamDestroy(stream));
  std::free(h_out);
  std::free(h_mapped);
  std::printf("samples program: %s on %s\n", ok ? "PASSED" : "FAILED", prop.name);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
