// SPDX-License-Identifier: Apache-2.0
// The CUDA-style kernels of bench/runtime/peers.bench.cpp, written once for every runtime that
// runs them: an index_select (no barrier), a 2-D grid-stride elementwise op, a transpose through
// a 32x33 `__shared__` tile with one __syncthreads(), a 256-thread shared-memory tree reduction
// (nine __syncthreads()), NVIDIA's matrixMul sample (32x32 tiles of both operands in shared
// memory, two __syncthreads() a step, 1024 threads a block) and a cooperative-groups reduction
// (cg::reduce over each warp's tile, then the block's eight sums; not for HIP-CPU, which has no
// cooperative groups). `M` says how a kernel sees memory: M::in<T> and M::out<T> for global
// arrays, M::tile, M::square and M::row for its `__shared__` arrays (views under cuguard, raw
// pointers under HIP-CPU), so that each runtime runs the same code. Each kernel's serial loop,
// the same work as plain C++, is beside it.
#pragma once

#include <cstdint>

namespace peers {

constexpr int tile_dim = 32;        ///< the transpose's tile is tile_dim x (tile_dim + 1)
constexpr int tile_rows = 8;        ///< the transpose's block is tile_dim x tile_rows
constexpr int reduce_threads = 256; ///< block_sum's block

/// out[i][j] = table[ids[i]][j], one thread per element of out (rows x width).
template <class M>
__global__ void index_select(typename M::template in<float> table, typename M::template in<std::int64_t> ids,
                             typename M::template out<float> out, int rows, int width) {
  const std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= std::int64_t{rows} * width) return;
  const std::int64_t r = i / width, c = i % width;
  out[i] = table[ids[r] * width + c];
}

inline void index_select_loop(const float* table, const std::int64_t* ids, float* out, int rows, int width) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < width; ++c) out[r * width + c] = table[ids[r] * width + c];
}

/// c = a * s + b over a height x width matrix, a 2-D grid-stride loop.
template <class M>
__global__ void elementwise(typename M::template in<float> a, typename M::template in<float> b,
                            typename M::template out<float> c, float s, int height, int width) {
  for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < height; y += static_cast<int>(blockDim.y * gridDim.y))
    for (int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); x < width; x += static_cast<int>(blockDim.x * gridDim.x)) {
      const std::int64_t i = std::int64_t{y} * width + x;
      c[i] = a[i] * s + b[i];
    }
}

inline void elementwise_loop(const float* a, const float* b, float* c, float s, int height, int width) {
  for (std::int64_t i = 0; i < std::int64_t{height} * width; ++i) c[i] = a[i] * s + b[i];
}

/// out = in transposed (n x n, n a multiple of tile_dim), through a padded shared tile.
template <class M>
__global__ void transpose(typename M::template in<float> in, typename M::template out<float> out, int n) {
  __shared__ float storage[tile_dim][tile_dim + 1];
  const auto tile = M::tile(storage);
  const int x = static_cast<int>(blockIdx.x) * tile_dim + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * tile_dim + static_cast<int>(threadIdx.y);
  for (int j = 0; j < tile_dim; j += tile_rows)
    tile(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x)) = in[std::int64_t{y + j} * n + x];
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y) * tile_dim + static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(blockIdx.x) * tile_dim + static_cast<int>(threadIdx.y);
  for (int j = 0; j < tile_dim; j += tile_rows)
    out[std::int64_t{ty + j} * n + tx] = tile(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j);
}

inline void transpose_loop(const float* in, float* out, int n) {
  for (std::int64_t y = 0; y < n; ++y)
    for (std::int64_t x = 0; x < n; ++x) out[x * n + y] = in[y * n + x];
}

/// out[b] = the sum of in's b-th run of reduce_threads elements: a tree in shared memory.
template <class M>
__global__ void block_sum(typename M::template in<float> in, typename M::template out<float> out) {
  __shared__ float storage[reduce_threads];
  const auto partial = M::row(storage);
  const int t = static_cast<int>(threadIdx.x);
  partial[t] = in[std::int64_t{blockIdx.x} * reduce_threads + t];
  __syncthreads();
  for (int stride = reduce_threads / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

inline void block_sum_loop(const float* in, float* out, int blocks) {
  for (std::int64_t b = 0; b < blocks; ++b) {
    float sum = 0;
    for (std::int64_t t = 0; t < reduce_threads; ++t) sum += in[b * reduce_threads + t];
    out[b] = sum;
  }
}

constexpr int mm_tile = 32; ///< matmul's tiles and block: mm_tile x mm_tile

/// c = a * b (n x n, n a multiple of mm_tile), as the matrixMul sample computes it.
template <class M>
__global__ void matmul(typename M::template in<float> a, typename M::template in<float> b,
                       typename M::template out<float> c, int n) {
  __shared__ float a_storage[mm_tile][mm_tile];
  __shared__ float b_storage[mm_tile][mm_tile];
  const auto as = M::square(a_storage), bs = M::square(b_storage);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const std::int64_t row = std::int64_t{blockIdx.y} * mm_tile + ty, col = std::int64_t{blockIdx.x} * mm_tile + tx;
  float sum = 0;
  for (int k0 = 0; k0 < n; k0 += mm_tile) {
    as(ty, tx) = a[row * n + k0 + tx];
    bs(ty, tx) = b[std::int64_t{k0 + ty} * n + col];
    __syncthreads();
    for (int k = 0; k < mm_tile; ++k) sum += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  c[row * n + col] = sum;
}

inline void matmul_loop(const float* a, const float* b, float* c, int n) {
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
}

#if !defined(CUGUARD_BENCH_HIP_CPU)
/// block_sum's work with cooperative groups: each warp's tile reduced by cg::reduce, its sum in
/// shared memory, the block's eight sums added by thread 0 (its serial loop is block_sum_loop).
template <class M>
__global__ void tile_sum(typename M::template in<float> in, typename M::template out<float> out) {
  __shared__ float storage[reduce_threads / 32];
  const auto warp_sums = M::warps(storage);
  const cooperative_groups::thread_block block = cooperative_groups::this_thread_block();
  const cooperative_groups::thread_block_tile<32> tile = cooperative_groups::tiled_partition<32>(block);
  const float v = in[std::int64_t{blockIdx.x} * reduce_threads + threadIdx.x];
  const float sum = cooperative_groups::reduce(tile, v, cooperative_groups::plus<float>());
  if (tile.thread_rank() == 0) warp_sums[static_cast<int>(tile.meta_group_rank())] = sum;
  block.sync();
  if (threadIdx.x == 0) {
    float total = 0;
    for (int w = 0; w < reduce_threads / 32; ++w) total += warp_sums[w];
    out[blockIdx.x] = total;
  }
}
#endif

} // namespace peers
