// SPDX-License-Identifier: Apache-2.0
// Five small kernels as users write them, compiled by bench/compile/compile_time.py: on raw pointers
// (CUGUARD_BENCH_RAW), or on checked views with the headers they need (views and launch), or
// with <cuguard/cuguard.hpp> (CUGUARD_BENCH_ENTRY_HEADER).
#include <cstdint>

#if defined(CUGUARD_BENCH_RAW)

__global__ void saxpy(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

__global__ void transpose(const float* in, float* out, int rows, int cols) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

__global__ void gather_rows(const float* table, const std::int64_t* rows, float* out, int cols) {
  const std::int64_t row = rows[blockIdx.x];
  for (int j = threadIdx.x; j < cols; j += blockDim.x) out[blockIdx.x * cols + j] = table[row * cols + j];
}

__global__ void block_sum(const float* x, float* sums, int n) {
  __shared__ float tile[256];
  const int i = blockIdx.x * 256 + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = tile[0];
}

__global__ void column_scale(float* m, int rows, int cols, int col_stride, const float* scale) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int c = 0; c < cols; ++c) m[r + c * col_stride] *= scale[c];
}

void run(float* x, float* y, const std::int64_t* idx, int n) {
  saxpy<<<4, 256>>>(2.0f, x, y, n);
  transpose<<<dim3(2, 2), dim3(16, 16)>>>(x, y, 32, 32);
  gather_rows<<<6, 128>>>(x, idx, y, 32);
  block_sum<<<4, 256>>>(x, y, n);
  column_scale<<<1, 32>>>(y, 32, 32, 32, x);
}

#else

#  if defined(CUGUARD_BENCH_ENTRY_HEADER)
#    include <cuguard/cuguard.hpp>
#  else
#    include <cuguard/checked_view.hpp>
#    include <cuguard/launch.hpp>
#  endif

template <class T, std::size_t R>
using view = cuguard::checked_view<T, R>;

__global__ void saxpy(float a, view<const float, 1> x, view<float, 1> y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < y.extent(0); i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void transpose(view<const float, 2> in, view<float, 2> out) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < in.extent(0) && c < in.extent(1)) out(c, r) = in(r, c);
}

__global__ void gather_rows(view<const float, 2> table, view<const std::int64_t, 1> rows, view<float, 2> out) {
  const auto row = cuguard::index_from(rows, blockIdx.x);
  for (int j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(blockIdx.x, j) = table(row, j);
}

__global__ void block_sum(view<const float, 1> x, view<float, 1> sums) {
  __shared__ float storage[256];
  const auto tile = cuguard::make_view(storage, {256}, "tile");
  const int i = blockIdx.x * 256 + threadIdx.x;
  tile[threadIdx.x] = i < x.extent(0) ? x[i] : 0.0f;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = tile[0];
}

__global__ void column_scale(view<float, 2> m, view<const float, 1> scale) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m.extent(0))
    for (int c = 0; c < m.extent(1); ++c) m(r, c) *= scale[c];
}

void run(float* x, float* y, const std::int64_t* idx, int n) {
  cuguard::launch(saxpy, 4, 256, 2.0f, cuguard::make_view(x, {n}, "x"), cuguard::make_view(y, {n}, "y"));
  cuguard::launch({dim3(2, 2), dim3(16, 16)}, transpose, cuguard::make_view(x, {32, 32}, "in"),
                  cuguard::make_view(y, {32, 32}, "out"));
  cuguard::launch(gather_rows, 6, 128, cuguard::make_view(x, {64, 32}, "table"), cuguard::make_view(idx, {6}, "rows"),
                  cuguard::make_view(y, {6, 32}, "out"));
  cuguard::launch(block_sum, 4, 256, cuguard::make_view(x, {n}, "x"), cuguard::make_view(y, {4}, "sums"));
  cuguard::launch(column_scale, 1, 32, cuguard::make_strided_view(y, {32, 32}, {1, 32}, "m"),
                  cuguard::make_view(x, {32}, "scale"));
}

#endif
