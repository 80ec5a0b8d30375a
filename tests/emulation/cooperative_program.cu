// A program written as NVIDIA's cooperative-groups samples write theirs (reduction,
// reductionMultiBlockCG, warpAggregatedAtomicsCG, simpleCooperativeGroups, binaryPartitionCG):
// tiles (of one warp and of several), cg::reduce and the scans, coalesced groups, dynamic tiles, partitions, memcpy_async, and
// a grid-wide sync in a cooperative launch. Built unchanged by cuguard_emulate (plain and
// SANITIZE). `cooperative_program` checks its own results and prints PASSED; with an argument it
// runs one planted bug: `tile_race` (a tile reads what another lane wrote without tile.sync()),
// `tile_overrun` (a tile's index off by one), `not_cooperative` (this_grid().sync() in a <<<>>>
// launch), `too_large` (a cooperative grid the device cannot hold at once), `grid_return` (a block
// returns before the grid's barrier the others wait at).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cg = cooperative_groups;

#include "samples/check.h"

// Sums `in` with a grid-stride loop, each tile of 32 reduced by cg::reduce and by shfl_down.
__global__ void reduce_tiles(const int* in, int* out, int n) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  const int reduced = cg::reduce(tile, sum, cg::plus<int>());
  int shuffled = sum;
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) shuffled += tile.shfl_down(shuffled, offset);
  if (tile.thread_rank() == 0) {
    atomicAdd(&out[0], reduced);
    atomicAdd(&out[1], shuffled);
  }
}

// reductionMultiBlockCG: each block's sum in shared memory, then, after the grid's barrier,
// block 0 adds the blocks' sums.
__global__ void reduce_grid(const int* in, int* partial, int* out, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
  extern __shared__ int warp_sums[];
  int sum = 0;
  for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n); i += grid.size()) sum += in[i];
  sum = cg::reduce(tile, sum, cg::plus<int>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = sum;
  cg::sync(cta);
  if (cta.thread_rank() == 0) {
    int block_sum = 0;
    for (unsigned w = 0; w < tile.meta_group_size(); ++w) block_sum += warp_sums[w];
    partial[blockIdx.x] = block_sum;
  }
  grid.sync();
  if (grid.thread_rank() == 0) {
    int total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    *out = total;
  }
}

// warpAggregatedAtomicsCG: the odd values, each warp's lanes that hold one taking their places
// with one atomic.
__global__ void filter_odd(const int* in, int* out, int* count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] % 2 != 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(active.size()));
    base = active.shfl(base, 0);
    out[base + active.thread_rank()] = in[i];
  }
}

// simpleCooperativeGroups: the sum of ranks in a thread_group, through shared memory.
__device__ int sum_ranks(cg::thread_group g, int* x, int value) {
  const int lane = static_cast<int>(g.thread_rank());
  for (int i = static_cast<int>(g.size()) / 2; i > 0; i /= 2) {
    x[lane] = value;
    g.sync();
    if (lane < i) value += x[lane + i];
    g.sync();
  }
  return value;
}

__global__ void group_sums(int* block_sum, int* tile_sums) {
  __shared__ int workspace[64];
  cg::thread_block block = cg::this_thread_block();
  const int all = sum_ranks(block, workspace, static_cast<int>(block.thread_rank()));
  if (block.thread_rank() == 0) *block_sum = all;
  block.sync();
  cg::thread_group tile4 = cg::tiled_partition(block, 4);
  const int offset = static_cast<int>(block.thread_rank() - tile4.thread_rank());
  const int part = sum_ranks(tile4, workspace + offset, static_cast<int>(tile4.thread_rank()));
  if (tile4.thread_rank() == 0) tile_sums[block.thread_rank() / 4] = part;
}

// Scans, votes and partitions of a tile; a memcpy_async of the block.
__global__ void tile_facts(const int* in, int* facts) {
  __shared__ int staged[64];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int r = static_cast<int>(tile.thread_rank());
  const int inclusive = cg::inclusive_scan(tile, r + 1);
  const int exclusive = cg::exclusive_scan(tile, r + 1);
  const int largest = cg::reduce(tile, r * 3 % 7, cg::greater<int>());
  const unsigned votes = tile.ballot(r % 2 == 0);
  const int any = tile.any(r == 31), all = tile.all(r < 32);
  cg::coalesced_group thirds = cg::binary_partition(tile, r % 3 == 0);
  cg::coalesced_group fourths = cg::labeled_partition(tile, r % 4);
  cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(tile);
  const int in_eighth = cg::reduce(eighth, 1, cg::plus<int>());
  cg::memcpy_async(block, staged, in, sizeof(int) * 64);
  cg::wait(block);
  const int at = static_cast<int>(block.thread_rank());
  facts[at * 8 + 0] = inclusive;
  facts[at * 8 + 1] = exclusive;
  facts[at * 8 + 2] = largest;
  facts[at * 8 + 3] = static_cast<int>(votes) == 0x55555555 && any && all;
  facts[at * 8 + 4] = static_cast<int>(thirds.size());
  facts[at * 8 + 5] = static_cast<int>(fourths.size());
  facts[at * 8 + 6] = in_eighth * 100 + static_cast<int>(eighth.meta_group_rank());
  facts[at * 8 + 7] = staged[63 - at];
}

// reduction's multi_warp_cg_reduce: tiles of 64 threads (two warps) of a block of 256, through
// shared memory across the tile's barrier, and its reduce, scan, shfl, any and all.
__global__ void multi_warp_tiles(int* facts) {
  __shared__ cg::block_tile_memory<256> scratch;
  __shared__ int across[256];
  cg::thread_block cta = cg::this_thread_block(scratch);
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cta);
  const int r = static_cast<int>(tile.thread_rank());
  across[cta.thread_rank()] = r;
  tile.sync();
  const int mirrored = across[cta.thread_rank() - r + (63 - r)]; // written by the other warp of the tile
  const int* f = facts + cta.thread_rank() * 6;
  int* out = const_cast<int*>(f);
  out[0] = mirrored;
  out[1] = cg::reduce(tile, r, cg::plus<int>());
  out[2] = cg::exclusive_scan(tile, 1);
  out[3] = tile.shfl(r * 10, 40);
  out[4] = tile.any(r == 63) * 10 + tile.all(r < 63);
  out[5] = static_cast<int>(tile.meta_group_rank() * 100 + tile.meta_group_size());
}

// Planted: lanes read their neighbour's element of shared memory, with no tile.sync() between.
__global__ void tile_race(int* out) {
  __shared__ int values[32];
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  values[tile.thread_rank()] = static_cast<int>(tile.thread_rank());
  out[tile.thread_rank()] = values[(tile.thread_rank() + 1) % 32];
}

// Planted: each tile reads the element after its last (off by one).
__global__ void tile_overrun(const int* in, int* out) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  const unsigned first = tile.meta_group_rank() * 16;
  out[first + tile.thread_rank()] = in[first + tile.thread_rank() + 1];
}

// Planted: block 1 returns before the grid's barrier.
__global__ void grid_return(int* out) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == 1) return;
  out[blockIdx.x] = 1;
  grid.sync();
  out[blockIdx.x] += 1;
}

static bool expect(const char* what, long long got, long long want) {
  if (got == want) return true;
  std::printf("%s: %lld, expected %lld\n", what, got, want);
  return false;
}

static bool check_reductions(const int* d_in, const int* h_in, int n) {
  long long want = 0;
  for (int i = 0; i < n; ++i) want += h_in[i];
  int *d_out = nullptr, *d_partial = nullptr, h_out[2] = {0, 0};
  CHECK(cudaMalloc(&d_out, 2 * sizeof(int)));
  CHECK(cudaMemset(d_out, 0, 2 * sizeof(int)));
  reduce_tiles<<<8, 128>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
  bool ok = expect("cg::reduce", h_out[0], want) && expect("shfl_down", h_out[1], want);

  int device = 0, sms = 0, per_sm = 0, cooperative = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int threads = 256;
  const size_t shared = threads / 32 * sizeof(int);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_grid, threads, shared));
  const int blocks = sms * per_sm;
  CHECK(cudaMalloc(&d_partial, blocks * sizeof(int)));
  int n_arg = n;
  void* args[] = {(void*)&d_in, (void*)&d_partial, (void*)&d_out, (void*)&n_arg};
  CHECK(cudaLaunchCooperativeKernel((void*)reduce_grid, dim3(blocks), dim3(threads), args, shared, 0));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h_out, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  ok = expect("cooperative launch supported", cooperative, 1) && expect("grid.sync() reduction", h_out[0], want) && ok;
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_out));
  return ok;
}

static bool check_groups(const int* d_in, const int* h_in, int n) {
  int *d_out = nullptr, *d_count = nullptr, *d_sums = nullptr, *d_facts = nullptr;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_count, sizeof(int)));
  CHECK(cudaMemset(d_count, 0, sizeof(int)));
  filter_odd<<<(n + 127) / 128, 128>>>(d_in, d_out, d_count, n);
  int count = 0;
  CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
  int* h_out = static_cast<int*>(std::malloc(n * sizeof(int)));
  CHECK(cudaMemcpy(h_out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost));
  long long odd = 0, odd_sum = 0, got_sum = 0;
  for (int i = 0; i < n; ++i) odd += h_in[i] % 2 != 0, odd_sum += h_in[i] % 2 != 0 ? h_in[i] : 0;
  for (int i = 0; i < count; ++i) got_sum += h_out[i];
  bool ok = expect("coalesced odd count", count, odd) && expect("coalesced odd sum", got_sum, odd_sum);

  CHECK(cudaMalloc(&d_sums, 17 * sizeof(int)));
  group_sums<<<1, 64>>>(d_sums, d_sums + 1);
  int sums[17];
  CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
  ok = expect("thread_block sum of ranks", sums[0], 63 * 64 / 2) && ok;
  for (int t = 1; t < 17; ++t) ok = expect("tiled_partition(block, 4) sum of ranks", sums[t], 6) && ok;

  CHECK(cudaMalloc(&d_facts, 64 * 8 * sizeof(int)));
  tile_facts<<<1, 64>>>(d_in, d_facts);
  int facts[64 * 8];
  CHECK(cudaMemcpy(facts, d_facts, sizeof facts, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64 && ok; ++t) {
    const int r = t % 32,* f = facts + t * 8;
    ok = expect("inclusive_scan", f[0], (r + 1) * (r + 2) / 2) && expect("exclusive_scan", f[1], r * (r + 1) / 2) &&
         expect("reduce greater", f[2], 6) && expect("ballot any all", f[3], 1) &&
         expect("binary_partition size", f[4], r % 3 == 0 ? 11 : 21) && expect("labeled_partition size", f[5], 8) &&
         expect("tile of 8", f[6], 800 + r / 8) && expect("memcpy_async", f[7], h_in[63 - t]);
  }
  int* d_multi = nullptr;
  CHECK(cudaMalloc(&d_multi, 256 * 6 * sizeof(int)));
  multi_warp_tiles<<<1, 256>>>(d_multi);
  int multi[256 * 6];
  CHECK(cudaMemcpy(multi, d_multi, sizeof multi, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 256 && ok; ++t) {
    const int r = t % 64, *f = multi + t * 6;
    ok = expect("tile of 64: across its barrier", f[0], 63 - r) && expect("tile of 64: reduce", f[1], 63 * 64 / 2) &&
         expect("tile of 64: exclusive_scan", f[2], r) && expect("tile of 64: shfl", f[3], 400) &&
         expect("tile of 64: any, all", f[4], 10) && expect("tile of 64: meta group", f[5], t / 64 * 100 + 4);
  }
  CHECK(cudaFree(d_multi));
  std::free(h_out);
  CHECK(cudaFree(d_facts));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_count));
  CHECK(cudaFree(d_out));
  return ok;
}

static int planted(const char* bug, const int* d_in, int n) {
  int* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  if (std::strcmp(bug, "tile_race") == 0) {
    tile_race<<<1, 32>>>(d_out);
  } else if (std::strcmp(bug, "tile_overrun") == 0) {
    tile_overrun<<<1, 64>>>(d_in, d_out); // reads in[64]: `in` holds 64 here
  } else if (std::strcmp(bug, "not_cooperative") == 0) {
    reduce_grid<<<2, 64, 2 * sizeof(int)>>>(d_in, d_out, d_out + 2, n);
  } else if (std::strcmp(bug, "too_large") == 0) {
    int n_arg = n;
    void* args[] = {(void*)&d_in, (void*)&d_out, (void*)&d_out, (void*)&n_arg};
    CHECK(cudaLaunchCooperativeKernel((void*)reduce_grid, dim3(100000), dim3(1024), args, 0, 0));
  } else if (std::strcmp(bug, "grid_return") == 0) {
    void* args[] = {(void*)&d_out};
    CHECK(cudaLaunchCooperativeKernel((void*)grid_return, dim3(4), dim3(32), args, 0, 0));
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s ran: %s\n", bug, cudaGetErrorName(e));
  CHECK(cudaFree(d_out));
  return 0;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? 64 : 5000;
  int* h_in = static_cast<int*>(std::malloc(n * sizeof(int)));
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37 + 11) % 101;
  int* d_in = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  int status = 0;
  if (argc > 1) {
    status = planted(argv[1], d_in, n);
  } else {
    const bool ok = check_reductions(d_in, h_in, n) && check_groups(d_in, h_in, n);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("cooperative program: %s on %s\n", ok ? "PASSED" : "FAILED", prop.name);
    status = ok ? 0 : 1;
  }
  CHECK(cudaFree(d_in));
  std::free(h_in);
  return status;
}
