// SPDX-License-Identifier: Apache-2.0
// Kernels as a CUDA user writes them, each written four ways, for the static costs of checks on
// code nobody tuned (bench/static/user_kernels.py):
//   raw::     a strided accessor over a plain pointer, as PyTorch's packed_accessor64 is;
//   hand::    the same with the check a careful user writes by hand: compare, record the first
//             failure with an atomic, return;
//   cg::      cuguard's checked views (the file is compiled with checks off and on);
//   md::      cuda::std::mdspan, with CCCL's device assertions (compiled alone, with
//             -DUSER_KERNELS_MDSPAN and -DCCCL_ENABLE_DEVICE_ASSERTIONS).
// The kernels: copy2d (a 2-D copy), embedding (a row gather by index), gather1 (torch.gather
// along dim 1), matmul16 (16x16 shared-memory tiles), lstm_cell (gates to h and c) and rowsum
// (a row reduced by a warp with __shfl_down_sync).
#include <cstdint>

#if defined(USER_KERNELS_MDSPAN)
#  include <cuda/std/mdspan>
#else
#  include <cuguard/cuguard.hpp>
#endif

__device__ inline float sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }

#if !defined(USER_KERNELS_MDSPAN)

/// A strided 2-D tensor over a plain pointer (what packed_accessor64 holds).
template <class T>
struct accessor {
  T* data;
  std::int64_t extent[2];
  std::int64_t stride[2];
  __device__ T& operator()(std::int64_t i, std::int64_t j) const { return data[i * stride[0] + j * stride[1]]; }
};
template <class T>
struct accessor1 {
  T* data;
  std::int64_t extent[1];
  std::int64_t stride[1];
  __device__ T& operator()(std::int64_t i) const { return data[i * stride[0]]; }
};

namespace raw {

__global__ void copy2d(accessor<const float> in, accessor<float> out) {
  const std::int64_t i = blockIdx.x;
  for (std::int64_t j = threadIdx.x; j < out.extent[1]; j += blockDim.x) out(i, j) = in(i, j);
}

__global__ void embedding(accessor<const float> weight, accessor1<const std::int64_t> ids, accessor<float> out) {
  const std::int64_t row = ids(blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent[1]; j += blockDim.x) out(blockIdx.x, j) = weight(row, j);
}

__global__ void gather1(accessor<const float> in, accessor<const std::int64_t> index, accessor<float> out) {
  const std::int64_t n = out.extent[0] * out.extent[1];
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e / out.extent[1], j = e % out.extent[1];
    out(i, j) = in(i, index(i, j));
  }
}

__global__ void matmul16(accessor<const float> a, accessor<const float> b, accessor<float> c) {
  __shared__ float as_storage[16 * 16];
  __shared__ float bs_storage[16 * 16];
  const accessor<float> as{as_storage, {16, 16}, {16, 1}}, bs{bs_storage, {16, 16}, {16, 1}};
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float sum = 0;
  for (std::int64_t k0 = 0; k0 < a.extent[1]; k0 += 16) {
    as(ty, tx) = a(row, k0 + tx);
    bs(ty, tx) = b(k0 + ty, col);
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  c(row, col) = sum;
}

__global__ void lstm_cell(accessor<const float> gates, accessor<const float> c0, accessor<float> h, accessor<float> c) {
  const std::int64_t hidden = h.extent[1], n = h.extent[0] * hidden;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = e / hidden, j = e % hidden;
    const float i = sigmoid(gates(b, j)), f = sigmoid(gates(b, hidden + j));
    const float g = tanhf(gates(b, 2 * hidden + j)), o = sigmoid(gates(b, 3 * hidden + j));
    const float cn = f * c0(b, j) + i * g;
    c(b, j) = cn;
    h(b, j) = o * tanhf(cn);
  }
}

__global__ void rowsum(accessor<const float> in, accessor1<float> out) {
  const std::int64_t row = blockIdx.x;
  const unsigned lane = threadIdx.x;
  float s = 0;
  for (std::int64_t j = lane; j < in.extent[1]; j += 32) s += in(row, j);
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if (lane == 0) out(row) = s;
}

} // namespace raw

namespace hand {

// The first failure: its line and index, claimed with an atomic.
__device__ unsigned claim;
__device__ long long first[3];

__device__ inline void record(int line, std::int64_t i, std::int64_t j) {
  if (atomicCAS(&claim, 0u, 1u) == 0u) {
    first[0] = line;
    first[1] = i;
    first[2] = j;
  }
}
template <class A>
__device__ inline bool inside(const A& a, std::int64_t i, std::int64_t j) {
  return static_cast<std::uint64_t>(i) < static_cast<std::uint64_t>(a.extent[0]) &&
         static_cast<std::uint64_t>(j) < static_cast<std::uint64_t>(a.extent[1]);
}
template <class A>
__device__ inline bool inside(const A& a, std::int64_t i) {
  return static_cast<std::uint64_t>(i) < static_cast<std::uint64_t>(a.extent[0]);
}
#  define HAND_CHECK(ok, i, j)  \
    if (!(ok)) {                \
      record(__LINE__, (i), (j)); \
      return;                   \
    }

__global__ void copy2d(accessor<const float> in, accessor<float> out) {
  const std::int64_t i = blockIdx.x;
  for (std::int64_t j = threadIdx.x; j < out.extent[1]; j += blockDim.x) {
    HAND_CHECK(inside(in, i, j) && inside(out, i, j), i, j);
    out(i, j) = in(i, j);
  }
}

__global__ void embedding(accessor<const float> weight, accessor1<const std::int64_t> ids, accessor<float> out) {
  HAND_CHECK(inside(ids, blockIdx.x), blockIdx.x, 0);
  const std::int64_t row = ids(blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent[1]; j += blockDim.x) {
    HAND_CHECK(inside(weight, row, j) && inside(out, blockIdx.x, j), row, j);
    out(blockIdx.x, j) = weight(row, j);
  }
}

__global__ void gather1(accessor<const float> in, accessor<const std::int64_t> index, accessor<float> out) {
  const std::int64_t n = out.extent[0] * out.extent[1];
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e / out.extent[1], j = e % out.extent[1];
    HAND_CHECK(inside(index, i, j), i, j);
    const std::int64_t k = index(i, j);
    HAND_CHECK(inside(in, i, k) && inside(out, i, j), i, k);
    out(i, j) = in(i, k);
  }
}

__global__ void matmul16(accessor<const float> a, accessor<const float> b, accessor<float> c) {
  __shared__ float as_storage[16 * 16];
  __shared__ float bs_storage[16 * 16];
  const accessor<float> as{as_storage, {16, 16}, {16, 1}}, bs{bs_storage, {16, 16}, {16, 1}};
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float sum = 0;
  for (std::int64_t k0 = 0; k0 < a.extent[1]; k0 += 16) {
    // (The tiles' indices are the kernel's own, in range by construction: not checked by hand.)
    HAND_CHECK(inside(a, row, k0 + tx) && inside(b, k0 + ty, col), row, k0);
    as(ty, tx) = a(row, k0 + tx);
    bs(ty, tx) = b(k0 + ty, col);
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  HAND_CHECK(inside(c, row, col), row, col);
  c(row, col) = sum;
}

__global__ void lstm_cell(accessor<const float> gates, accessor<const float> c0, accessor<float> h, accessor<float> c) {
  const std::int64_t hidden = h.extent[1], n = h.extent[0] * hidden;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = e / hidden, j = e % hidden;
    HAND_CHECK(inside(gates, b, 3 * hidden + j) && inside(c0, b, j) && inside(c, b, j) && inside(h, b, j), b, j);
    const float i = sigmoid(gates(b, j)), f = sigmoid(gates(b, hidden + j));
    const float g = tanhf(gates(b, 2 * hidden + j)), o = sigmoid(gates(b, 3 * hidden + j));
    const float cn = f * c0(b, j) + i * g;
    c(b, j) = cn;
    h(b, j) = o * tanhf(cn);
  }
}

__global__ void rowsum(accessor<const float> in, accessor1<float> out) {
  const std::int64_t row = blockIdx.x;
  const unsigned lane = threadIdx.x;
  float s = 0;
  for (std::int64_t j = lane; j < in.extent[1]; j += 32) {
    HAND_CHECK(inside(in, row, j), row, j);
    s += in(row, j);
  }
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if (lane == 0) {
    HAND_CHECK(inside(out, row), row, 0);
    out(row) = s;
  }
}

#  undef HAND_CHECK
} // namespace hand

namespace cg {
using cuguard::checked_view;

__global__ void copy2d(checked_view<const float, 2> in, checked_view<float, 2> out) {
  const std::int64_t i = blockIdx.x;
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(i, j) = in(i, j);
}

__global__ void embedding(checked_view<const float, 2> weight, checked_view<const std::int64_t, 1> ids,
                          checked_view<float, 2> out) {
  const auto row = cuguard::index_from(ids, blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(blockIdx.x, j) = weight(row, j);
}

__global__ void gather1(checked_view<const float, 2> in, checked_view<const std::int64_t, 2> index,
                        checked_view<float, 2> out) {
  const std::int64_t n = out.extent(0) * out.extent(1);
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e / out.extent(1), j = e % out.extent(1);
    out(i, j) = in(i, cuguard::index_from(index, i, j));
  }
}

__global__ void matmul16(checked_view<const float, 2> a, checked_view<const float, 2> b, checked_view<float, 2> c) {
  __shared__ float as_storage[16 * 16];
  __shared__ float bs_storage[16 * 16];
  const auto as = cuguard::make_view(as_storage, {16, 16}, "as");
  const auto bs = cuguard::make_view(bs_storage, {16, 16}, "bs");
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float sum = 0;
  for (std::int64_t k0 = 0; k0 < a.extent(1); k0 += 16) {
    as(ty, tx) = a(row, k0 + tx);
    bs(ty, tx) = b(k0 + ty, col);
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  c(row, col) = sum;
}

__global__ void lstm_cell(checked_view<const float, 2> gates, checked_view<const float, 2> c0, checked_view<float, 2> h,
                          checked_view<float, 2> c) {
  const std::int64_t hidden = h.extent(1), n = h.extent(0) * hidden;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = e / hidden, j = e % hidden;
    const float i = sigmoid(gates(b, j)), f = sigmoid(gates(b, hidden + j));
    const float g = tanhf(gates(b, 2 * hidden + j)), o = sigmoid(gates(b, 3 * hidden + j));
    const float cn = f * c0(b, j) + i * g;
    c(b, j) = cn;
    h(b, j) = o * tanhf(cn);
  }
}

__global__ void rowsum(checked_view<const float, 2> in, checked_view<float, 1> out) {
  const std::int64_t row = blockIdx.x;
  const unsigned lane = threadIdx.x;
  float s = 0;
  for (std::int64_t j = lane; j < in.extent(1); j += 32) s += in(row, j);
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if (lane == 0) out(row) = s;
}

} // namespace cg

#else // USER_KERNELS_MDSPAN

namespace md {
using ext2 = cuda::std::dextents<std::int64_t, 2>;
using ext1 = cuda::std::dextents<std::int64_t, 1>;
template <class T>
using view2 = cuda::std::mdspan<T, ext2, cuda::std::layout_stride>;
template <class T>
using view1 = cuda::std::mdspan<T, ext1, cuda::std::layout_stride>;

__global__ void copy2d(view2<const float> in, view2<float> out) {
  const std::int64_t i = blockIdx.x;
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(i, j) = in(i, j);
}

__global__ void embedding(view2<const float> weight, view1<const std::int64_t> ids, view2<float> out) {
  const std::int64_t row = ids(blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(blockIdx.x, j) = weight(row, j);
}

__global__ void gather1(view2<const float> in, view2<const std::int64_t> index, view2<float> out) {
  const std::int64_t n = out.extent(0) * out.extent(1);
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e / out.extent(1), j = e % out.extent(1);
    out(i, j) = in(i, index(i, j));
  }
}

__global__ void matmul16(view2<const float> a, view2<const float> b, view2<float> c) {
  __shared__ float as_storage[16 * 16];
  __shared__ float bs_storage[16 * 16];
  const cuda::std::mdspan<float, cuda::std::extents<int, 16, 16>> as(as_storage), bs(bs_storage);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float sum = 0;
  for (std::int64_t k0 = 0; k0 < a.extent(1); k0 += 16) {
    as(ty, tx) = a(row, k0 + tx);
    bs(ty, tx) = b(k0 + ty, col);
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as(ty, k) * bs(k, tx);
    __syncthreads();
  }
  c(row, col) = sum;
}

__global__ void lstm_cell(view2<const float> gates, view2<const float> c0, view2<float> h, view2<float> c) {
  const std::int64_t hidden = h.extent(1), n = h.extent(0) * hidden;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < n; e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = e / hidden, j = e % hidden;
    const float i = sigmoid(gates(b, j)), f = sigmoid(gates(b, hidden + j));
    const float g = tanhf(gates(b, 2 * hidden + j)), o = sigmoid(gates(b, 3 * hidden + j));
    const float cn = f * c0(b, j) + i * g;
    c(b, j) = cn;
    h(b, j) = o * tanhf(cn);
  }
}

__global__ void rowsum(view2<const float> in, view1<float> out) {
  const std::int64_t row = blockIdx.x;
  const unsigned lane = threadIdx.x;
  float s = 0;
  for (std::int64_t j = lane; j < in.extent(1); j += 32) s += in(row, j);
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if (lane == 0) out(row) = s;
}

} // namespace md

#endif
