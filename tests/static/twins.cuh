// SPDX-License-Identifier: Apache-2.0
// Raw-pointer twins of the kernels in kernels/: the same algorithms written with plain pointers
// and index arithmetic, taking the same pointer, extents and strides. With checks off each
// kernel must compile to the same PTX as its twin (ptx_static.py).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace twin {

/// What a checked view is with checks off: a pointer, extents and strides.
template <class T, int R>
struct raw {
  T* data;
  std::int64_t extent[R];
  std::int64_t stride[R];
};

template <class T, int N>
struct alignas(sizeof(T) * N) pack {
  T v[N];
};

/// The offset of coordinates `idx`: the one piece of index arithmetic every kernel does.
template <int R>
__device__ __forceinline__ std::int64_t offset(const std::int64_t (&idx)[R], const std::int64_t (&stride)[R]) {
  std::int64_t off = 0;
  for (int r = 0; r < R; ++r) off += idx[r] * stride[r];
  return off;
}

/// The coordinates of row-major position `linear` in `extent`.
template <int R>
__device__ __forceinline__ void unravel(std::int64_t linear, const std::int64_t (&extent)[R], std::int64_t (&pos)[R]) {
  for (int r = R; r-- > 0;) {
    pos[r] = linear % extent[r];
    linear /= extent[r];
  }
}

template <int V, class T, class I>
__global__ void index_select_kernel(raw<const T, 3> input, raw<const I, 1> index, raw<T, 3> out) {
  const std::int64_t rows = out.extent[0] * out.extent[1];
  const std::int64_t width = out.extent[2] / V;
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const std::int64_t o = row / out.extent[1];
    const std::int64_t k = row % out.extent[1];
    const I src = index.data[k * index.stride[0]];
    for (std::int64_t j = threadIdx.x; j < width; j += blockDim.x) {
      if constexpr (V == 1) {
        out.data[o * out.stride[0] + k * out.stride[1] + j * out.stride[2]] =
            input.data[o * input.stride[0] + static_cast<std::int64_t>(src) * input.stride[1] + j * input.stride[2]];
      } else {
        const pack<T, V> loaded = *reinterpret_cast<const pack<T, V>*>(
            input.data + (o * input.stride[0] + static_cast<std::int64_t>(src) * input.stride[1] + (j * V) * input.stride[2]));
        *reinterpret_cast<pack<T, V>*>(out.data + (o * out.stride[0] + k * out.stride[1] + (j * V) * out.stride[2])) = loaded;
      }
    }
  }
}

template <class T, class I, int R>
__global__ void gather_kernel(raw<const T, R> input, int dim, raw<const I, R> index, raw<T, R> out) {
  std::int64_t n = 1;
  for (int r = 0; r < R; ++r) n *= out.extent[r];
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    std::int64_t pos[R];
    unravel(linear, out.extent, pos);
    const std::int64_t src = static_cast<std::int64_t>(index.data[offset(pos, index.stride)]);
    std::int64_t from[R];
    for (int r = 0; r < R; ++r) from[r] = r == dim ? src : pos[r];
    out.data[offset(pos, out.stride)] = input.data[offset(from, input.stride)];
  }
}

template <class T, class I, int R>
__global__ void scatter_add_kernel(raw<T, R> out, int dim, raw<const I, R> index, raw<const T, R> src) {
  std::int64_t n = 1;
  for (int r = 0; r < R; ++r) n *= index.extent[r];
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    std::int64_t pos[R];
    unravel(linear, index.extent, pos);
    const std::int64_t dst = static_cast<std::int64_t>(index.data[offset(pos, index.stride)]);
    std::int64_t to[R];
    for (int r = 0; r < R; ++r) to[r] = r == dim ? dst : pos[r];
    atomicAdd(&out.data[offset(to, out.stride)], src.data[offset(pos, src.stride)]);
  }
}

__device__ inline std::int64_t block_inclusive_scan(std::int64_t* scan, std::int64_t value) {
  const std::int64_t t = threadIdx.x;
  scan[t] = value;
  __syncthreads();
  for (std::int64_t offset = 1; offset < blockDim.x; offset *= 2) {
    const std::int64_t add = t >= offset ? scan[t - offset] : 0;
    __syncthreads();
    scan[t] += add;
    __syncthreads();
  }
  const std::int64_t sum = scan[t];
  __syncthreads();
  return sum;
}

template <class M>
__global__ void mask_counts_kernel(raw<const M, 1> mask, raw<std::int64_t, 1> counts) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int selected = __syncthreads_count(i < mask.extent[0] && mask.data[i * mask.stride[0]] != M{});
  if (threadIdx.x == 0) counts.data[blockIdx.x * counts.stride[0]] = selected;
}

template <class I>
__global__ void __launch_bounds__(1024, 1) exclusive_scan_kernel(raw<I, 1> values, raw<I, 1> total) {
  __shared__ std::int64_t scan[1024];
  const std::int64_t threads = blockDim.x;
  std::int64_t base = 0;
  for (std::int64_t chunk = 0; chunk < values.extent[0]; chunk += threads) {
    const std::int64_t i = chunk + threadIdx.x;
    const std::int64_t value = i < values.extent[0] ? values.data[i * values.stride[0]] : 0;
    const std::int64_t inclusive = block_inclusive_scan(scan, value);
    if (i < values.extent[0]) values.data[i * values.stride[0]] = base + inclusive - value;
    if (threadIdx.x == threads - 1) scan[0] = inclusive;
    __syncthreads();
    base += scan[0];
    __syncthreads();
  }
  if (threadIdx.x == 0) total.data[0] = base;
}

template <class M>
__global__ void mask_positions_kernel(raw<const M, 1> mask, raw<const std::int64_t, 1> offsets,
                                      raw<std::int64_t, 1> positions) {
  __shared__ std::int64_t scan[1024];
  const std::int64_t threads = blockDim.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  const std::int64_t flag = i < mask.extent[0] && mask.data[i * mask.stride[0]] != M{} ? 1 : 0;
  const std::int64_t before = block_inclusive_scan(scan, flag) - flag;
  if (i < mask.extent[0])
    positions.data[i * positions.stride[0]] = flag ? offsets.data[blockIdx.x * offsets.stride[0]] + before : -1;
}

template <class T>
__global__ void masked_rows_kernel(raw<const T, 2> input, raw<const std::int64_t, 1> positions, raw<T, 2> out) {
  for (std::int64_t i = blockIdx.x; i < input.extent[0]; i += gridDim.x) {
    const std::int64_t p = positions.data[i * positions.stride[0]];
    if (p < 0) continue;
    for (std::int64_t j = threadIdx.x; j < input.extent[1]; j += blockDim.x)
      out.data[p * out.stride[0] + j * out.stride[1]] = input.data[i * input.stride[0] + j * input.stride[1]];
  }
}

template <int Tile, class T>
__global__ void gemm_nt_kernel(raw<const T, 2> a, raw<const T, 2> b, raw<const T, 1> bias, raw<T, 2> c,
                               int check_finite) {
  __shared__ float a_storage[Tile][Tile + 1];
  __shared__ float b_storage[Tile][Tile + 1];
  float* a_tile = &a_storage[0][0];
  float* b_tile = &b_storage[0][0];
  (void)check_finite;
  const std::int64_t m_count = c.extent[0], n_count = c.extent[1], k_count = a.extent[1];
  const std::int64_t ty = threadIdx.y, tx = threadIdx.x;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.y) * Tile + ty;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * Tile + tx;
  const std::int64_t b_row = static_cast<std::int64_t>(blockIdx.x) * Tile + ty;
  float acc = 0.0f;
  for (std::int64_t k0 = 0; k0 < k_count; k0 += Tile) {
    const std::int64_t k = k0 + tx;
    a_tile[ty * (Tile + 1) + tx] =
        row < m_count && k < k_count ? static_cast<float>(a.data[row * a.stride[0] + k * a.stride[1]]) : 0.0f;
    b_tile[ty * (Tile + 1) + tx] =
        b_row < n_count && k < k_count ? static_cast<float>(b.data[b_row * b.stride[0] + k * b.stride[1]]) : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < Tile; ++kk)
      acc += a_tile[ty * (Tile + 1) + static_cast<std::int64_t>(kk)] * b_tile[tx * (Tile + 1) + static_cast<std::int64_t>(kk)];
    __syncthreads();
  }
  if (row < m_count && col < n_count) {
    if (bias.extent[0] != 0) acc += static_cast<float>(bias.data[col * bias.stride[0]]);
    c.data[row * c.stride[0] + col * c.stride[1]] = static_cast<T>(acc);
  }
}

template <class T>
__global__ void lstm_cell_kernel(raw<const T, 2> gates_x, raw<const T, 2> gates_h, raw<T, 2> c, raw<T, 2> h,
                                 int check_finite) {
  (void)check_finite;
  const std::int64_t hidden = c.extent[1];
  const std::int64_t n = c.extent[0] * hidden;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    const std::int64_t b = linear / hidden, j = linear % hidden;
    float g[4];
    for (int gate = 0; gate < 4; ++gate) {
      const std::int64_t col = gate * hidden + j;
      g[gate] = static_cast<float>(gates_x.data[b * gates_x.stride[0] + col * gates_x.stride[1]]) +
                static_cast<float>(gates_h.data[b * gates_h.stride[0] + col * gates_h.stride[1]]);
    }
    const float i = 1.0f / (1.0f + expf(-g[0]));
    const float f = 1.0f / (1.0f + expf(-g[1]));
    const float cand = tanhf(g[2]);
    const float o = 1.0f / (1.0f + expf(-g[3]));
    const float cell = f * static_cast<float>(c.data[b * c.stride[0] + j * c.stride[1]]) + i * cand;
    const float out = o * tanhf(cell);
    c.data[b * c.stride[0] + j * c.stride[1]] = static_cast<T>(cell);
    h.data[b * h.stride[0] + j * h.stride[1]] = static_cast<T>(out);
  }
}

template <class T>
__global__ void copy2d_kernel(raw<const T, 2> src, raw<T, 2> dst) {
  std::int64_t n = 1;
  for (int r = 0; r < 2; ++r) n *= dst.extent[r];
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    dst.data[(linear / dst.extent[1]) * dst.stride[0] + (linear % dst.extent[1]) * dst.stride[1]] =
        src.data[(linear / dst.extent[1]) * src.stride[0] + (linear % dst.extent[1]) * src.stride[1]];
  }
}

} // namespace twin
