// SPDX-License-Identifier: Apache-2.0
// ops.cu adopting cuguard::ptr, in the two steps docs/pytorch.md describes. Step 1 (this file as it is):
// each T* parameter of a kernel or device function renamed cuguard::ptr<T> (`__restrict__` with
// it CUGUARD_RESTRICT, `reinterpret_cast<const float4*>(x)` cuguard::ptr_cast<const float4>(x),
// and the template arguments the launch of gather_rows_kernel deduced written out); nothing else.
// Step 2 (built with -DNAMED_ARGUMENTS): the launches' arguments named,
// cuguard::torch::ptr<T>(x, "x") for x.data_ptr<T>(). Each op takes a `planted` argument that
// plants an off-by-one where it is not 0.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuguard/torch.hpp>
#include <torch/extension.h>

#ifdef NAMED_ARGUMENTS
#  define ARGUMENT(T, tensor) cuguard::torch::ptr<T>(tensor, #tensor)
#else
#  define ARGUMENT(T, tensor) tensor.data_ptr<T>()
#endif

#define THREADS 256

// Farthest point sampling of each batch's points (src, rows ptr[b] to ptr[b + 1]): raw
// __shared__ arrays, __syncthreads, an output whose size is read back with cudaMemcpy.
template <typename scalar_t>
__global__ void fps_kernel(cuguard::ptr<const scalar_t> CUGUARD_RESTRICT src, cuguard::ptr<const int64_t> CUGUARD_RESTRICT ptr,
                           cuguard::ptr<const int64_t> CUGUARD_RESTRICT out_ptr, cuguard::ptr<scalar_t> CUGUARD_RESTRICT dist,
                           cuguard::ptr<int64_t> CUGUARD_RESTRICT out, int64_t dim, int64_t planted) {
  const int64_t thread_idx = threadIdx.x;
  const int64_t batch_idx = blockIdx.x;
  const int64_t start_idx = ptr[batch_idx];
  const int64_t end_idx = ptr[batch_idx + 1] + planted; // ptr-ops: fps end
  __shared__ scalar_t best_dist[THREADS];
  __shared__ int64_t best_dist_idx[THREADS];
  if (thread_idx == 0) out[out_ptr[batch_idx]] = start_idx;
  for (int64_t m = out_ptr[batch_idx] + 1; m < out_ptr[batch_idx + 1]; m++) {
    __syncthreads();
    const int64_t old = out[m - 1];
    scalar_t best = (scalar_t)-1.;
    int64_t best_idx = 0;
    for (int64_t n = start_idx + thread_idx; n < end_idx; n += THREADS) {
      scalar_t dd = 0;
      for (int64_t d = 0; d < dim; d++) {
        const scalar_t diff = src[dim * old + d] - src[dim * n + d]; // ptr-ops: fps read
        dd += diff * diff;
      }
      dd = min(dist[n], dd);
      dist[n] = dd;
      if (dd > best) {
        best = dd;
        best_idx = n;
      }
    }
    best_dist[thread_idx] = best;
    best_dist_idx[thread_idx] = best_idx;
    for (int64_t half = THREADS / 2; half > 0; half /= 2) {
      __syncthreads();
      // (the larger distance, the lower index between equals: the first maximum, as argmax)
      if (thread_idx < half && (best_dist[thread_idx] < best_dist[thread_idx + half] ||
                                (best_dist[thread_idx] == best_dist[thread_idx + half] &&
                                 best_dist_idx[thread_idx + half] < best_dist_idx[thread_idx]))) {
        best_dist[thread_idx] = best_dist[thread_idx + half];
        best_dist_idx[thread_idx] = best_dist_idx[thread_idx + half];
      }
    }
    __syncthreads();
    if (thread_idx == 0) out[m] = best_dist_idx[0];
  }
}

torch::Tensor fps(torch::Tensor src, torch::Tensor ptr, int64_t per_batch, int64_t planted) {
  TORCH_CHECK(src.dim() == 2 && ptr.dim() == 1, "src (N, D) and ptr (B + 1)");
  at::cuda::CUDAGuard device_guard(src.device());
  cudaSetDevice(src.get_device()); // (under emulation the emulated device's index, 0)
  src = src.contiguous();
  ptr = ptr.contiguous();
  const auto batch_size = ptr.numel() - 1;
  auto deg = ptr.narrow(0, 1, batch_size) - ptr.narrow(0, 0, batch_size);
  auto out_ptr = torch::cat({torch::zeros(1, ptr.options()), deg.clamp_max(per_batch).cumsum(0)}, 0);
  auto dist = torch::full(src.size(0), 1e38, src.options());
  int64_t out_size = 0;
  AT_CUDA_CHECK(cudaMemcpy(&out_size, out_ptr[-1].data_ptr<int64_t>(), sizeof(int64_t), cudaMemcpyDeviceToHost));
  auto out = torch::empty(out_size, out_ptr.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(src.scalar_type(), "fps", [&] {
    fps_kernel<scalar_t><<<batch_size, THREADS, 0, stream>>>(
        ARGUMENT(scalar_t, src), ARGUMENT(int64_t, ptr), ARGUMENT(int64_t, out_ptr), ARGUMENT(scalar_t, dist),
        ARGUMENT(int64_t, out), src.size(1), planted);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// One row of `src` per index, as detectron2's helpers read rows: a device function taking a
// pointer, a kernel template whose arguments the launch deduces.
template <typename T>
__device__ __forceinline__ T row_value(cuguard::ptr<const T> CUGUARD_RESTRICT row, int64_t j) {
  return row[j]; // ptr-ops: row read
}

template <typename scalar_t, typename index_t>
__global__ void gather_rows_kernel(cuguard::ptr<const scalar_t> CUGUARD_RESTRICT src, cuguard::ptr<const index_t> CUGUARD_RESTRICT index,
                                   cuguard::ptr<scalar_t> CUGUARD_RESTRICT out, int64_t rows, int64_t cols, int64_t planted) {
  for (int64_t k = blockIdx.x * blockDim.x + threadIdx.x; k < rows * cols; k += blockDim.x * gridDim.x) {
    const int64_t r = k / cols, j = k % cols;
    out[k + planted] = row_value(src + index[r] * cols, j); // ptr-ops: gather write
  }
}

torch::Tensor gather_rows(torch::Tensor src, torch::Tensor index, int64_t planted) {
  TORCH_CHECK(src.dim() == 2 && index.dim() == 1, "src (N, D) and index (R)");
  const c10::cuda::OptionalCUDAGuard guard(src.device());
  auto out = torch::empty({index.size(0), src.size(1)}, src.options());
  const int64_t n = out.numel();
  const int blocks = static_cast<int>((n + THREADS - 1) / THREADS);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(src.scalar_type(), "gather_rows", [&] {
    gather_rows_kernel<scalar_t, int64_t><<<blocks, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        ARGUMENT(scalar_t, src), ARGUMENT(int64_t, index), ARGUMENT(scalar_t, out), index.size(0), src.size(1), planted);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// y = 2 x, four floats at a time through float4 (the tail one by one), as vectorized kernels
// read: the planted off-by-one reads one float4 more, across the end of x.
__global__ void twice_kernel(cuguard::ptr<const float> CUGUARD_RESTRICT x, cuguard::ptr<float> CUGUARD_RESTRICT y, int64_t n, int64_t planted) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t vectors = n / 4;
  if (i < vectors + planted) {
    const float4 v = cuguard::ptr_cast<const float4>(x)[i]; // ptr-ops: float4 read
    cuguard::ptr_cast<float4>(y)[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  } else if (i == vectors + planted) {
    for (int64_t k = 4 * vectors; k < n; ++k) y[k] = 2 * x[k];
  }
}

torch::Tensor twice(torch::Tensor x, int64_t planted) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat && x.is_contiguous(), "x: contiguous float");
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  const int blocks = static_cast<int>((n / 4 + planted + 64) / 64); // a thread a float4, one for the tail
  twice_kernel<<<blocks, 64, 0, at::cuda::getCurrentCUDAStream()>>>(ARGUMENT(float, x), ARGUMENT(float, y), n,
                                                                    planted);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

// An absent input passed as an empty tensor, its pointer null as Torch gives it; with
// -DNAMED_ARGUMENTS a cuguard::torch view of it as well, whose data() is null.
__global__ void optional_kernel(cuguard::ptr<const float> opt, cuguard::ptr<float> out, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = opt != nullptr ? opt[i] : 1.0f;
}

torch::Tensor optional_or_one(torch::Tensor opt, int64_t n) {
  auto out = torch::empty({n}, opt.options().dtype(torch::kFloat));
#ifdef NAMED_ARGUMENTS
  TORCH_CHECK((opt.numel() == 0) == (cuguard::torch::view<const float, 1>(opt, "opt").data() == nullptr),
              "opt: a view's data() is null exactly where the tensor is empty");
#endif
  optional_kernel<<<1, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(ARGUMENT(float, opt), ARGUMENT(float, out), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// (ops.cpp binds it; the renamed file's version plants nothing: a cuguard::ptr reports any distance)
void poke(torch::Tensor x, int64_t offset, int64_t wild) {}
torch::Tensor quotient(torch::Tensor x, int64_t divisor) { return x.div(divisor, "trunc"); }
torch::Tensor as_int(torch::Tensor x) { return x.to(torch::kInt); }
torch::Tensor shifted(torch::Tensor x, int64_t by) { return x.bitwise_left_shift(by); }

// y[i] += 2 x[i], for i below x's element count (one more where planted), x and y slices of one
// flat buffer perhaps.
__global__ void axpy_kernel(cuguard::ptr<const float> x, cuguard::ptr<float> y, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 2 * x[i];
}

void axpy_slices(torch::Tensor x, torch::Tensor y, int64_t planted) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat && x.is_contiguous() && y.sizes() == x.sizes(), "x, y: contiguous float");
  const int64_t n = x.numel() + planted;
  axpy_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      ARGUMENT(float, x), ARGUMENT(float, y), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A table of untyped pointers filled from a list of tensors on the host, cast back in a functor:
// each tensor scaled by `by`, the last told of one element more where planted.
struct tensor_table {
  cuguard::ptr<void> addresses[4];
  int sizes[4];
};

struct scale_functor {
  __device__ void operator()(tensor_table& t, int which, float by) const {
    cuguard::ptr<float> values = cuguard::ptr_cast<float>(t.addresses[which]);
    for (int i = threadIdx.x; i < t.sizes[which]; i += blockDim.x) values[i] *= by;
  }
};

template <typename F>
__global__ void apply_table_kernel(tensor_table t, F f, float by) {
  f(t, blockIdx.x, by);
}

void scale_list(std::vector<torch::Tensor> tensors, double by, int64_t planted) {
  TORCH_CHECK(!tensors.empty() && tensors.size() <= 4, "tensors: 1 to 4 of them");
  tensor_table table;
  for (size_t i = 0; i < tensors.size(); ++i) {
    table.addresses[i] = tensors[i].data_ptr();
    table.sizes[i] = static_cast<int>(tensors[i].numel() + (i + 1 == tensors.size() ? planted : 0));
  }
  apply_table_kernel<<<static_cast<int>(tensors.size()), 64, 0, at::cuda::getCurrentCUDAStream()>>>(
      table, scale_functor(), static_cast<float>(by));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// out[i] = in[i] + 1 for the n elements a binding gave it as pointers.
__global__ void plus_one_kernel(cuguard::ptr<const float> in, cuguard::ptr<float> out, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

void plus_one_launcher(const float* in, float* out, int64_t n) {
  plus_one_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      in, out, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A small vector type of the extension's own, read through a cast of the float buffer.
struct vec3 {
  float x, y, z;
};

__global__ void norms_kernel(cuguard::ptr<const float> points, cuguard::ptr<float> out, int64_t n) {
  const cuguard::ptr<const vec3> p = cuguard::ptr_cast<const vec3>(points);
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z);
}

torch::Tensor norms(torch::Tensor points, int64_t planted) {
  TORCH_CHECK(points.scalar_type() == torch::kFloat && points.is_contiguous() && points.dim() == 2 && points.size(1) == 3,
              "points: contiguous float, n x 3");
  auto out = torch::empty({points.size(0)}, points.options());
  const int64_t n = points.size(0) + planted;
  norms_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      ARGUMENT(float, points), ARGUMENT(float, out), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
