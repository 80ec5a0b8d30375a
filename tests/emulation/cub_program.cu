// A program that uses CUB's block and warp primitives as CUDA extensions do (pytorch3d's
// BlockReduce with cub::ArgMax, BlockScan, BlockLoad / BlockStore, BlockRadixSort, WarpReduce,
// WarpScan), and its device-wide algorithms from host code (DeviceReduce, DeviceScan,
// DeviceRadixSort), built unchanged by cuguard_emulate (plain and SANITIZE) from the toolkit's own CUB.
// `cub_program` checks its own results and prints PASSED; with an argument it runs one planted
// bug: `reuse` (a TempStorage reused without the __syncthreads() CUB asks for: a race),
// `past_end` (BlockLoad told of more valid items than the array holds).
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/util_type.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "samples/check.h"

constexpr int threads = 128, per_thread = 4, tile = threads * per_thread;

// Block-wide: the sum, the maximum and where it is (cub::ArgMax over KeyValuePair), and each
// thread's exclusive prefix sum.
__global__ void block_facts(const int* in, int* sums, int* argmax, int* prefix) {
  using reduce = cub::BlockReduce<int, threads>;
  using pair_reduce = cub::BlockReduce<cub::KeyValuePair<int, float>, threads>;
  using scan = cub::BlockScan<int, threads>;
  __shared__ typename reduce::TempStorage reduce_storage;
  __shared__ typename pair_reduce::TempStorage pair_storage;
  __shared__ typename scan::TempStorage scan_storage;
  const int v = in[threadIdx.x];
  const int sum = reduce(reduce_storage).Sum(v);
  const cub::KeyValuePair<int, float> best =
      pair_reduce(pair_storage).Reduce(cub::KeyValuePair<int, float>(static_cast<int>(threadIdx.x), static_cast<float>(v)), cub::ArgMax());
  int before = 0;
  scan(scan_storage).ExclusiveSum(v, before);
  prefix[threadIdx.x] = before;
  if (threadIdx.x == 0) {
    sums[0] = sum;
    argmax[0] = best.key;
    argmax[1] = static_cast<int>(best.value);
  }
}

// A tile loaded (transposed through shared memory), sorted by BlockRadixSort, stored back.
__global__ void sort_tile(const unsigned* in, unsigned* out) {
  using load = cub::BlockLoad<unsigned, threads, per_thread, cub::BLOCK_LOAD_TRANSPOSE>;
  using sort = cub::BlockRadixSort<unsigned, threads, per_thread>;
  using store = cub::BlockStore<unsigned, threads, per_thread, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union {
    typename load::TempStorage loading;
    typename sort::TempStorage sorting;
    typename store::TempStorage storing;
  } storage;
  unsigned keys[per_thread];
  load(storage.loading).Load(in, keys);
  __syncthreads();
  sort(storage.sorting).Sort(keys);
  __syncthreads();
  store(storage.storing).Store(out, keys);
}

// Per warp: WarpReduce's sum of floats and WarpScan's inclusive sum of ints.
__global__ void warp_facts(float* sums, int* scans) {
  using reduce = cub::WarpReduce<float>;
  using scan = cub::WarpScan<int>;
  __shared__ typename reduce::TempStorage reduce_storage[threads / 32];
  __shared__ typename scan::TempStorage scan_storage[threads / 32];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const float sum = reduce(reduce_storage[warp]).Sum(0.5f * static_cast<float>(lane));
  int inclusive = 0;
  scan(scan_storage[warp]).InclusiveSum(lane, inclusive);
  if (lane == 0) sums[warp] = sum;
  scans[threadIdx.x] = inclusive;
}

// Planted: one TempStorage for two reductions, with no __syncthreads() between them.
__global__ void reuse(const int* in, int* out) {
  using reduce = cub::BlockReduce<int, threads>;
  __shared__ typename reduce::TempStorage storage;
  const int a = reduce(storage).Sum(in[threadIdx.x]);
  const int b = reduce(storage).Reduce(in[threadIdx.x], cuda::maximum<>());
  if (threadIdx.x == 0) out[0] = a + b;
}

// Planted: the valid items counted one past the array (thread 64 loads in[n]).
__global__ void past_end(const int* in, int* out, int n) {
  using load = cub::BlockLoad<int, threads, 2, cub::BLOCK_LOAD_DIRECT>;
  int items[2] = {0, 0};
  load().Load(in, items, n + 1, -1);
  out[threadIdx.x] = items[0] + items[1];
}

static bool expect(const char* what, long long got, long long want) {
  if (got == want) return true;
  std::printf("%s: %lld, expected %lld\n", what, got, want);
  return false;
}

static bool check_blocks(const int* d_in, const int* h_in) {
  int *d_sums, *d_argmax, *d_prefix;
  CHECK(cudaMalloc(&d_sums, sizeof(int)));
  CHECK(cudaMalloc(&d_argmax, 2 * sizeof(int)));
  CHECK(cudaMalloc(&d_prefix, threads * sizeof(int)));
  block_facts<<<1, threads>>>(d_in, d_sums, d_argmax, d_prefix);
  int sum = 0, argmax[2], prefix[threads];
  CHECK(cudaMemcpy(&sum, d_sums, sizeof sum, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(argmax, d_argmax, sizeof argmax, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(prefix, d_prefix, sizeof prefix, cudaMemcpyDeviceToHost));
  long long want = 0;
  int best = 0;
  bool ok = true;
  for (int i = 0; i < threads; ++i) {
    ok = ok && expect("BlockScan ExclusiveSum", prefix[i], want);
    want += h_in[i];
    if (h_in[i] > h_in[best]) best = i;
  }
  ok = expect("BlockReduce Sum", sum, want) && expect("ArgMax key", argmax[0], best) &&
       expect("ArgMax value", argmax[1], h_in[best]) && ok;
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_argmax));
  CHECK(cudaFree(d_prefix));
  return ok;
}

static bool check_sort_and_warps() {
  unsigned h_keys[tile], h_sorted[tile];
  for (int i = 0; i < tile; ++i) h_keys[i] = static_cast<unsigned>((i * 2654435761u) >> 7);
  unsigned *d_keys, *d_sorted;
  CHECK(cudaMalloc(&d_keys, sizeof h_keys));
  CHECK(cudaMalloc(&d_sorted, sizeof h_sorted));
  CHECK(cudaMemcpy(d_keys, h_keys, sizeof h_keys, cudaMemcpyHostToDevice));
  sort_tile<<<1, threads>>>(d_keys, d_sorted);
  CHECK(cudaMemcpy(h_sorted, d_sorted, sizeof h_sorted, cudaMemcpyDeviceToHost));
  bool ok = true;
  unsigned long long in_sum = 0, out_sum = 0;
  for (int i = 0; i < tile; ++i) {
    in_sum += h_keys[i], out_sum += h_sorted[i];
    if (i > 0) ok = ok && expect("BlockRadixSort order", h_sorted[i - 1] <= h_sorted[i], 1);
  }
  ok = expect("BlockRadixSort keys", static_cast<long long>(out_sum), static_cast<long long>(in_sum)) && ok;
  float* d_sums;
  int* d_scans;
  CHECK(cudaMalloc(&d_sums, threads / 32 * sizeof(float)));
  CHECK(cudaMalloc(&d_scans, threads * sizeof(int)));
  warp_facts<<<1, threads>>>(d_sums, d_scans);
  float sums[threads / 32];
  int scans[threads];
  CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(scans, d_scans, sizeof scans, cudaMemcpyDeviceToHost));
  for (int w = 0; w < threads / 32; ++w) ok = expect("WarpReduce Sum (x2)", static_cast<long long>(2 * sums[w]), 31 * 32 / 2) && ok;
  for (int t = 0; t < threads; ++t) ok = ok && expect("WarpScan InclusiveSum", scans[t], (t % 32) * (t % 32 + 1) / 2);
  for (void* p : {static_cast<void*>(d_keys), static_cast<void*>(d_sorted), static_cast<void*>(d_sums), static_cast<void*>(d_scans)})
    CHECK(cudaFree(p));
  return ok;
}

// Device-wide algorithms over several blocks' worth of items, each called twice as extensions
// call them (the first call sizes the temporary storage): DeviceReduce::Sum, DeviceScan::
// ExclusiveSum (its blocks wait on their predecessors' results) and DeviceRadixSort::SortPairs.
static bool check_device_wide() {
  const int n = 10000;
  std::vector<int> keys(n), values(n), out_keys(n), out_values(n);
  for (int i = 0; i < n; ++i) keys[i] = (i * 7919) % 1000, values[i] = i;
  int *d_keys, *d_values, *d_out_keys, *d_out_values, *d_sum;
  for (int** p : {&d_keys, &d_values, &d_out_keys, &d_out_values}) CHECK(cudaMalloc(p, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sum, sizeof(int)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  void* temp = nullptr;
  size_t reduce_bytes = 0, scan_bytes = 0, sort_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, reduce_bytes, d_keys, d_sum, n));
  CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, d_keys, d_out_keys, n));
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, d_keys, d_out_keys, d_values, d_out_values, n));
  CHECK(cudaMalloc(&temp, std::max(reduce_bytes, std::max(scan_bytes, sort_bytes))));
  CHECK(cub::DeviceReduce::Sum(temp, reduce_bytes, d_keys, d_sum, n));
  int sum = 0;
  CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  long long want = 0;
  for (int k : keys) want += k;
  bool ok = expect("DeviceReduce::Sum", sum, want);
  CHECK(cub::DeviceScan::ExclusiveSum(temp, scan_bytes, d_keys, d_out_keys, n));
  CHECK(cudaMemcpy(out_keys.data(), d_out_keys, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0, run = 0; i < n; run += keys[i], ++i) ok = ok && expect("DeviceScan::ExclusiveSum", out_keys[i], run);
  CHECK(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, d_keys, d_out_keys, d_values, d_out_values, n));
  CHECK(cudaMemcpy(out_keys.data(), d_out_keys, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out_values.data(), d_out_values, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) { // sorted, stable, and each value still beside its key
    ok = ok && expect("DeviceRadixSort::SortPairs pairs", keys[static_cast<size_t>(out_values[i])], out_keys[i]);
    if (i > 0) ok = ok && expect("DeviceRadixSort::SortPairs order", out_keys[i - 1] < out_keys[i] ||
                                 (out_keys[i - 1] == out_keys[i] && out_values[i - 1] < out_values[i]), 1);
  }
  for (void* p : {static_cast<void*>(d_keys), static_cast<void*>(d_values), static_cast<void*>(d_out_keys),
                  static_cast<void*>(d_out_values), static_cast<void*>(d_sum), temp})
    CHECK(cudaFree(p));
  return ok;
}

int main(int argc, char** argv) {
  int h_in[threads];
  for (int i = 0; i < threads; ++i) h_in[i] = (i * 37 + 11) % 101;
  int *d_in, *d_out = nullptr;
  CHECK(cudaMalloc(&d_in, sizeof h_in));
  if (argc > 1) CHECK(cudaMalloc(&d_out, threads * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  int status = 0;
  if (argc > 1 && std::strcmp(argv[1], "reuse") == 0) {
    reuse<<<1, threads>>>(d_in, d_out);
    std::printf("reuse ran: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  } else if (argc > 1 && std::strcmp(argv[1], "past_end") == 0) {
    past_end<<<1, threads>>>(d_in, d_out, threads);
    std::printf("past_end ran: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  } else {
    const bool ok = check_blocks(d_in, h_in) && check_sort_and_warps() && check_device_wide();
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("cub program: %s on %s\n", ok ? "PASSED" : "FAILED", prop.name);
    status = ok ? 0 : 1;
  }
  CHECK(cudaFree(d_in));
  if (d_out != nullptr) CHECK(cudaFree(d_out));
  return status;
}
