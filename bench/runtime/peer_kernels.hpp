// SPDX-License-Identifier: Apache-2.0
// The four CUDA-style kernels of bench/runtime/peers.bench.cpp, written once for every runtime
// that runs them: an index_select (no barrier), a 2-D grid-stride elementwise op, a transpose
// through a 32x33 `__shared__` tile with one __syncthreads(), and a 256-thread shared-memory tree
// reduction (nine __syncthreads()). `M` says how a kernel sees memory: M::in<T> and M::out<T>
// for global arrays, M::tile and M::row for its `__shared__` arrays (views under cuguard, raw
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

} // namespace peers
