// SPDX-License-Identifier: Apache-2.0
// An extension written as ATen's tutorial writes one, adopted by renaming: y = sigmoid(x) * w and its
// backward. Kernels in an anonymous namespace take cuguard::torch's accessors (size_t indices,
// RestrictPtrTraits) and are launched with <<<>>> inside AT_DISPATCH with ATen's own accessors;
// the weight gradient reduces through extern __shared__ memory. With nvcc on a GPU, or unchanged
// under emulation (cuguard.torch.load).
#include <torch/extension.h>
#include <cuguard/torch.hpp>

#include <vector>

namespace {

template <typename scalar_t>
__device__ __forceinline__ scalar_t sigmoid(scalar_t z) {
  return 1.0 / (1.0 + exp(-z));
}

template <typename scalar_t>
__global__ void sigmoid_scale_forward_kernel(
    const cuguard::torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> x,
    const cuguard::torch::PackedTensorAccessor<scalar_t, 1, torch::RestrictPtrTraits, size_t> w,
    cuguard::torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> y,
    int planted) {
  const int n = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < static_cast<int>(x.size(1)) + planted) {
    y[n][c] = sigmoid(x[n][c]) * w[c]; // aten-style: forward read
  }
}

template <typename scalar_t>
__global__ void sigmoid_scale_backward_kernel(
    const cuguard::torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> grad_y,
    const cuguard::torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> x,
    const cuguard::torch::PackedTensorAccessor<scalar_t, 1, torch::RestrictPtrTraits, size_t> w,
    cuguard::torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> grad_x,
    cuguard::torch::PackedTensorAccessor<scalar_t, 1, torch::RestrictPtrTraits, size_t> grad_w) {
  // One block per column: each thread sums rows n, n + blockDim.x, ...; then the block reduces.
  extern __shared__ unsigned char shared_bytes[];
  scalar_t* partial = reinterpret_cast<scalar_t*>(shared_bytes);
  const int c = blockIdx.x;
  scalar_t sum = 0;
  for (int n = threadIdx.x; n < static_cast<int>(x.size(0)); n += blockDim.x) {
    const scalar_t s = sigmoid(x[n][c]);
    grad_x[n][c] = grad_y[n][c] * w[c] * s * (1 - s);
    sum += grad_y[n][c] * s;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) grad_w[c] = partial[0];
}

} // namespace

torch::Tensor sigmoid_scale_forward(torch::Tensor x, torch::Tensor w, int64_t planted) {
  auto y = torch::empty_like(x);
  const int threads = 64;
  const dim3 blocks((x.size(1) + threads - 1) / threads, x.size(0));
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "sigmoid_scale_forward", ([&] {
    sigmoid_scale_forward_kernel<scalar_t><<<blocks, threads>>>(
        x.packed_accessor<scalar_t, 2, torch::RestrictPtrTraits, size_t>(),
        w.packed_accessor<scalar_t, 1, torch::RestrictPtrTraits, size_t>(),
        y.packed_accessor<scalar_t, 2, torch::RestrictPtrTraits, size_t>(),
        static_cast<int>(planted));
  }));
  return y;
}

std::vector<torch::Tensor> sigmoid_scale_backward(torch::Tensor grad_y, torch::Tensor x, torch::Tensor w) {
  auto grad_x = torch::empty_like(x);
  auto grad_w = torch::empty_like(w);
  const int threads = 32;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "sigmoid_scale_backward", ([&] {
    sigmoid_scale_backward_kernel<scalar_t><<<x.size(1), threads, threads * sizeof(scalar_t)>>>(
        grad_y.packed_accessor<scalar_t, 2, torch::RestrictPtrTraits, size_t>(),
        x.packed_accessor<scalar_t, 2, torch::RestrictPtrTraits, size_t>(),
        w.packed_accessor<scalar_t, 1, torch::RestrictPtrTraits, size_t>(),
        grad_x.packed_accessor<scalar_t, 2, torch::RestrictPtrTraits, size_t>(),
        grad_w.packed_accessor<scalar_t, 1, torch::RestrictPtrTraits, size_t>());
  }));
  return {grad_x, grad_w};
}
