// SPDX-License-Identifier: Apache-2.0
// An extension written as pytorch_cluster's and detectron2's are: kernels taking raw pointers
// from data_ptr<T>(), launched with <<<>>> on ATen's current stream, ATen's CUDA host headers,
// nothing of cuguard. Built unchanged under emulation by cuguard.torch.load (and by nvcc on a
// GPU); each op takes a `planted` argument that plants an off-by-one where it is not 0.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#define THREADS 256

// Farthest point sampling of each batch's points (src, rows ptr[b] to ptr[b + 1]): raw
// __shared__ arrays, __syncthreads, an output whose size is read back with cudaMemcpy.
template <typename scalar_t>
__global__ void fps_kernel(const scalar_t* __restrict__ src, const int64_t* __restrict__ ptr,
                           const int64_t* __restrict__ out_ptr, scalar_t* __restrict__ dist,
                           int64_t* __restrict__ out, int64_t dim, int64_t planted) {
  const int64_t thread_idx = threadIdx.x;
  const int64_t batch_idx = blockIdx.x;
  const int64_t start_idx = ptr[batch_idx];
  const int64_t end_idx = ptr[batch_idx + 1] + planted; // raw-ops: fps end
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
        const scalar_t diff = src[dim * old + d] - src[dim * n + d]; // raw-ops: fps read
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
        src.data_ptr<scalar_t>(), ptr.data_ptr<int64_t>(), out_ptr.data_ptr<int64_t>(),
        dist.data_ptr<scalar_t>(), out.data_ptr<int64_t>(), src.size(1), planted);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// One row of `src` per index, as detectron2's helpers read rows: a device function taking a
// pointer, a kernel template whose arguments the launch deduces.
template <typename T>
__device__ __forceinline__ T row_value(const T* __restrict__ row, int64_t j) {
  return row[j]; // raw-ops: row read
}

template <typename scalar_t, typename index_t>
__global__ void gather_rows_kernel(const scalar_t* __restrict__ src, const index_t* __restrict__ index,
                                   scalar_t* __restrict__ out, int64_t rows, int64_t cols, int64_t planted) {
  for (int64_t k = blockIdx.x * blockDim.x + threadIdx.x; k < rows * cols; k += blockDim.x * gridDim.x) {
    const int64_t r = k / cols, j = k % cols;
    out[k + planted] = row_value(src + index[r] * cols, j); // raw-ops: gather write
  }
}

torch::Tensor gather_rows(torch::Tensor src, torch::Tensor index, int64_t planted) {
  TORCH_CHECK(src.dim() == 2 && index.dim() == 1, "src (N, D) and index (R)");
  const c10::cuda::OptionalCUDAGuard guard(src.device());
  auto out = torch::empty({index.size(0), src.size(1)}, src.options());
  const int64_t n = out.numel();
  const int blocks = static_cast<int>((n + THREADS - 1) / THREADS);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(src.scalar_type(), "gather_rows", [&] {
    gather_rows_kernel<<<blocks, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
        src.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), out.data_ptr<scalar_t>(), index.size(0),
        src.size(1), planted);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// y = 2 x, four floats at a time through float4 (the tail one by one), as vectorized kernels
// read: the planted off-by-one reads one float4 more, across the end of x.
__global__ void twice_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n, int64_t planted) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t vectors = n / 4;
  if (i < vectors + planted) {
    const float4 v = reinterpret_cast<const float4*>(x)[i]; // raw-ops: float4 read
    reinterpret_cast<float4*>(y)[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
  } else if (i == vectors + planted) {
    for (int64_t k = 4 * vectors; k < n; ++k) y[k] = 2 * x[k];
  }
}

torch::Tensor twice(torch::Tensor x, int64_t planted) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat && x.is_contiguous(), "x: contiguous float");
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  const int blocks = static_cast<int>((n / 4 + planted + 64) / 64); // a thread a float4, one for the tail
  twice_kernel<<<blocks, 64, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n,
                                                                    planted);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

// An absent input passed as an empty tensor (`torch.Tensor([])`: Torch's allocator gives a storage
// of no bytes a null pointer), tested as a rasterizer tests it.
__global__ void optional_kernel(const float* opt, float* out, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = opt != nullptr ? opt[i] : 1.0f;
}

torch::Tensor optional_or_one(torch::Tensor opt, int64_t n) {
  auto out = torch::empty({n}, opt.options().dtype(torch::kFloat));
  optional_kernel<<<1, THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(opt.data_ptr<float>(), out.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// One store of 1.0f by thread 0, `offset` bytes from x's first element, or at the address `wild`
// where it is not 0: a planted overrun of any distance, a wild pointer.
__global__ void poke_kernel(float* x, int64_t offset, int64_t wild) {
  if (threadIdx.x != 0) return;
  char* at = wild != 0 ? reinterpret_cast<char*>(wild) : reinterpret_cast<char*>(x) + offset;
  *reinterpret_cast<float*>(at) = 1.0f; // raw-ops: poke
}

void poke(torch::Tensor x, int64_t offset, int64_t wild) {
  poke_kernel<<<1, 32, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), offset, wild);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// x[i] / divisor, integers: a divisor of 0 traps on the host's processor (SIGFPE), where a GPU
// gives an unspecified quotient.
__global__ void quotient_kernel(const int64_t* x, int64_t* out, int64_t n, int64_t divisor) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] / divisor; // raw-ops: quotient
}

torch::Tensor quotient(torch::Tensor x, int64_t divisor) {
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  quotient_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<int64_t>(), out.data_ptr<int64_t>(), n, divisor);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// Each x[i] as an int, converted implicitly (a rasterizer's `radii[idx] = my_radius;`): a GPU
// saturates (NaN: 0), the host does not.
__global__ void as_int_kernel(const float* x, int* out, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int r = x[i]; // raw-ops: implicit conversion
  out[i] = r;
}

torch::Tensor as_int(torch::Tensor x) {
  auto out = torch::empty(x.sizes(), x.options().dtype(torch::kInt));
  const int64_t n = x.numel();
  as_int_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), out.data_ptr<int>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// Each x[i] << by, 32-bit integers: a GPU clamps a count of 32 or more (0), the host takes it modulo 32.
__global__ void shifted_kernel(const int* x, int* out, int64_t n, int by) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] << by; // raw-ops: shift
}

torch::Tensor shifted(torch::Tensor x, int64_t by) {
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  shifted_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<int>(), out.data_ptr<int>(), n, static_cast<int>(by));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

// y[i] += 2 x[i], for i below x's element count (one more where planted): given two slices of
// one flat buffer (as fused optimizers and DDP buckets keep parameters), a read past x is a read
// of the next slice, in bounds of the storage.
__global__ void axpy_kernel(const float* x, float* y, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 2 * x[i]; // raw-ops: axpy read
}

void axpy_slices(torch::Tensor x, torch::Tensor y, int64_t planted) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat && x.is_contiguous() && y.sizes() == x.sizes(), "x, y: contiguous float");
  const int64_t n = x.numel() + planted;
  axpy_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A table of void* filled from a list of tensors on the host, cast back in a functor (a fused
// optimizer's TensorListMetadata): each tensor scaled by `by`, the last told of one element more
// where planted.
struct tensor_table {
  void* addresses[4];
  int sizes[4];
};

template <typename scalar_t, typename opmath_t>
struct scale_functor {
  __device__ void operator()(tensor_table& t, int which, opmath_t by) const {
    scalar_t* values = (scalar_t*)t.addresses[which];
    for (int i = threadIdx.x; i < t.sizes[which]; i += blockDim.x) values[i] *= by; // raw-ops: table write
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
      table, scale_functor<float, float>(), static_cast<float>(by));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// out[i] = in[i] + 1 for the n elements a binding gave it as raw pointers (the binding took them
// with data_ptr<T>(), in ops.cpp).
__global__ void plus_one_kernel(const float* in, float* out, int64_t n) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1; // raw-ops: plus one
}

void plus_one_launcher(const float* in, float* out, int64_t n) {
  plus_one_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      in, out, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A small vector type of the extension's own (a rasterizer's glm::vec3), read through a cast of
// the float buffer: out[i] = |point i|, for the points' count (one more where planted).
struct vec3 {
  float x, y, z;
};

__global__ void norms_kernel(const float* points, float* out, int64_t n) {
  const vec3* p = (const vec3*)points;
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z); // raw-ops: vec3 read
}

torch::Tensor norms(torch::Tensor points, int64_t planted) {
  TORCH_CHECK(points.scalar_type() == torch::kFloat && points.is_contiguous() && points.dim() == 2 && points.size(1) == 3,
              "points: contiguous float, n x 3");
  auto out = torch::empty({points.size(0)}, points.options());
  const int64_t n = points.size(0) + planted;
  norms_kernel<<<static_cast<int>((n + THREADS - 1) / THREADS), THREADS, 0, at::cuda::getCurrentCUDAStream()>>>(
      points.data_ptr<float>(), out.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
