// SPDX-License-Identifier: Apache-2.0
// Raw-pointer kernels in the shapes extensions write them, each written three ways, for the
// static costs of cuguard::ptr (bench/static/user_kernels.py --suite pointers):
//   raw::   T* parameters, no check;
//   hand::  the same with the check a careful user writes by hand at each access (each pointer's
//           element count passed beside it: compare, record the first failure with an atomic,
//           return);
//   cg::    the raw kernel with each T* renamed cuguard::ptr<T> (compiled with checks off and on).
// The kernels: rows (a pointer moved to each row, then indexed), gather (rows by an index read
// from memory), params (a struct of pointers passed by value), vec4 (float4 loads and stores
// through reinterpret_cast, cuguard::ptr_cast).
#include <cuguard/cuguard.hpp>

#include <cstdint>

namespace raw {

__global__ void rows(const float* in, float* out, int n_rows, int cols, float by) {
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const float* src = in + static_cast<std::int64_t>(r) * cols;
    float* dst = out + static_cast<std::int64_t>(r) * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = src[c] * by;
  }
}

__global__ void gather(const float* table, const std::int64_t* index, float* out, int n_rows, int cols) {
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const std::int64_t row = index[r];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[static_cast<std::int64_t>(r) * cols + c] = table[row * cols + c];
  }
}

struct sum_params {
  const float* a;
  const float* b;
  float* out;
  std::int64_t n;
};
__global__ void params(sum_params p) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < p.n; i += std::int64_t{gridDim.x} * blockDim.x)
    p.out[i] = p.a[i] + p.b[i];
}

__global__ void vec4(const float* x, float* y, std::int64_t quads) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < quads; i += std::int64_t{gridDim.x} * blockDim.x) {
    const float4 v = reinterpret_cast<const float4*>(x)[i];
    reinterpret_cast<float4*>(y)[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  }
}

} // namespace raw

namespace hand {

// The first failure: its line and offset, claimed with an atomic.
__device__ unsigned claim;
__device__ long long first[2];

__device__ inline void record(int line, std::int64_t i) {
  if (atomicCAS(&claim, 0u, 1u) == 0u) {
    first[0] = line;
    first[1] = i;
  }
}
__device__ inline bool inside(std::int64_t i, std::int64_t n) {
  return static_cast<std::uint64_t>(i) < static_cast<std::uint64_t>(n);
}
#define HAND_CHECK(ok, i)       \
  if (!(ok)) {                  \
    record(__LINE__, (i));      \
    return;                     \
  }

__global__ void rows(const float* in, std::int64_t n_in, float* out, std::int64_t n_out, int n_rows, int cols, float by) {
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const std::int64_t row = static_cast<std::int64_t>(r) * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
      HAND_CHECK(inside(row + c, n_in), row + c);
      HAND_CHECK(inside(row + c, n_out), row + c);
      out[row + c] = in[row + c] * by;
    }
  }
}

__global__ void gather(const float* table, std::int64_t n_table, const std::int64_t* index, std::int64_t n_index,
                       float* out, std::int64_t n_out, int n_rows, int cols) {
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    HAND_CHECK(inside(r, n_index), r);
    const std::int64_t row = index[r];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
      const std::int64_t from = row * cols + c, to = static_cast<std::int64_t>(r) * cols + c;
      HAND_CHECK(inside(from, n_table), from);
      HAND_CHECK(inside(to, n_out), to);
      out[to] = table[from];
    }
  }
}

struct sum_params {
  const float* a;
  std::int64_t n_a;
  const float* b;
  std::int64_t n_b;
  float* out;
  std::int64_t n_out;
  std::int64_t n;
};
__global__ void params(sum_params p) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < p.n; i += std::int64_t{gridDim.x} * blockDim.x) {
    HAND_CHECK(inside(i, p.n_a), i);
    HAND_CHECK(inside(i, p.n_b), i);
    HAND_CHECK(inside(i, p.n_out), i);
    p.out[i] = p.a[i] + p.b[i];
  }
}

__global__ void vec4(const float* x, std::int64_t n_x, float* y, std::int64_t n_y, std::int64_t quads) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < quads; i += std::int64_t{gridDim.x} * blockDim.x) {
    HAND_CHECK(inside(i, n_x / 4), i);
    HAND_CHECK(inside(i, n_y / 4), i);
    const float4 v = reinterpret_cast<const float4*>(x)[i];
    reinterpret_cast<float4*>(y)[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  }
}
#undef HAND_CHECK

} // namespace hand

namespace cg {
using cuguard::ptr;

__global__ void rows(ptr<const float> in, ptr<float> out, int n_rows, int cols, float by) {
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    ptr<const float> src = in + static_cast<std::int64_t>(r) * cols;
    ptr<float> dst = out + static_cast<std::int64_t>(r) * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = src[c] * by;
  }
}

__global__ void gather(ptr<const float> table, ptr<const std::int64_t> index, ptr<float> out, int n_rows, int cols) {
  for (int r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const std::int64_t row = index[r];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[static_cast<std::int64_t>(r) * cols + c] = table[row * cols + c];
  }
}

struct sum_params {
  ptr<const float> a;
  ptr<const float> b;
  ptr<float> out;
  std::int64_t n;
};
__global__ void params(sum_params p) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < p.n; i += std::int64_t{gridDim.x} * blockDim.x)
    p.out[i] = p.a[i] + p.b[i];
}

__global__ void vec4(ptr<const float> x, ptr<float> y, std::int64_t quads) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < quads; i += std::int64_t{gridDim.x} * blockDim.x) {
    const float4 v = cuguard::ptr_cast<const float4>(x)[i];
    cuguard::ptr_cast<float4>(y)[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  }
}

} // namespace cg
