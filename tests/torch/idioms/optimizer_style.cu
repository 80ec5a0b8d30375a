// SPDX-License-Identifier: Apache-2.0
// Written as fused optimizers of the multi-tensor-apply kind are: a struct of raw pointers filled
// on the host from a list of tensors (`void*` addresses, sizes), passed by value to a kernel
// template that calls a functor, which casts the addresses back to `T*` and calls CUDA's math
// functions unqualified as nvcc's global declarations let it (isfinite, rsqrtf, __expf, fmaf).
// Only ATen's headers (its CUDA ones too: ApplyGridUtils.cuh's ATenCeilDiv, CUDAApplyUtils.cuh's
// pointwise apply, which launches with <<<>>>; and THC/THCAtomics.cuh, which mmcv's helpers still
// include): the math functions come from CUDA, not from <cmath>.
#include <ATen/ATen.h>
#include <ATen/cuda/ApplyGridUtils.cuh>
#include <ATen/cuda/CUDAApplyUtils.cuh>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAUtils.h>
#include <THC/THCAtomics.cuh>

#include <vector>

constexpr int kMaxTensors = 4;
constexpr int kChunk = 64;

struct TensorListMetadata {
  void* addresses[2][kMaxTensors];
  int sizes[kMaxTensors];
  int block_to_tensor[32];
  int block_to_chunk[32];
};

template <typename T>
struct ScaleFunctor {
  __device__ void operator()(int chunk, TensorListMetadata& tl, int tensor, float scale, int* noop, int planted) {
    const T* in = (T*)tl.addresses[0][tensor];
    T* out = (T*)tl.addresses[1][tensor];
    const int n = tl.sizes[tensor] - chunk * kChunk + planted; // planted = 1: one past the tensor's end
    for (int i = threadIdx.x; i < n && i < kChunk; i += blockDim.x) {
      const float v = static_cast<float>(in[chunk * kChunk + i]); // idioms: scale read
      if (!isfinite(v)) *noop = 1;
      // v * scale, through the functions CUDA code calls unqualified (rsqrtf(1) = 1, __expf(0) = 1),
      // and FLT_MIN, which an nvcc build has through c10's headers (mmcv's focal loss).
      out[chunk * kChunk + i] = static_cast<T>(fmaf(v * scale, rsqrtf(1.0f) * __expf(0.0f), 0.0f * FLT_MIN));
    }
  }
};

// As pytorch_scatter's and pytorch_sparse's helpers: at::Half through CUDA's __half, which
// c10::Half converts to and from where __CUDACC__ is defined (nvcc's passes, and emulation's).
__device__ __inline__ at::Half shuffle_down(const at::Half var, const unsigned int delta) {
  return __shfl_down_sync(0xffffffffu, var.operator __half(), delta);
}

// Each lane's value plus the next lane's, through shuffle_down (the last lane keeps its own twice).
__global__ void pair_sums_kernel(const at::Half* in, at::Half* out) {
  const at::Half v = in[threadIdx.x];
  out[threadIdx.x] = static_cast<float>(v) + static_cast<float>(shuffle_down(v, 1));
}

// Each lane's value or the next lane's, the larger, compared as at::Half (pytorch_scatter's
// reducers): at::Half's operators, not __half's, which PyTorch's nvcc flags leave out
// (-D__CUDA_NO_HALF_OPERATORS__; both would be viable, through float and through __half).
__global__ void pair_max_kernel(const at::Half* in, at::Half* out) {
  const at::Half v = in[threadIdx.x];
  const at::Half next = shuffle_down(v, 1);
  out[threadIdx.x] = (v < next || v == next) ? next : v;
}

// Every value added into total[0], as pytorch_scatter's atomAdd of at::Half: CUDA's atomicAdd
// of a __half, given an at::Half (every other thread: Torch's gpuAtomicAdd, as mmcv's kernels).
__global__ void half_total_kernel(const at::Half* in, at::Half* total) {
  if (threadIdx.x % 2 == 0) atomicAdd(reinterpret_cast<__half*>(total), in[threadIdx.x]);
  else gpuAtomicAdd(total, in[threadIdx.x]); // THCAtomics.cuh's (ATen/cuda/Atomic.cuh's)
}

template <typename Functor>
__global__ void multi_tensor_apply_kernel(TensorListMetadata tl, Functor f, float scale, int* noop, int planted) {
  f(tl.block_to_chunk[blockIdx.x], tl, tl.block_to_tensor[blockIdx.x], scale, noop, planted);
}

// out[t] = in[t] * scale for every pair of tensors; returns 1 where an input held inf or NaN.
int multi_tensor_scale(std::vector<at::Tensor> in, std::vector<at::Tensor> out, double scale, int64_t planted) {
  TORCH_CHECK(in.size() == out.size() && in.size() <= kMaxTensors, "multi_tensor_scale: one output per input, at most ",
              kMaxTensors);
  TensorListMetadata tl{};
  int blocks = 0;
  for (size_t t = 0; t < in.size(); t++) {
    tl.addresses[0][t] = in[t].data_ptr();
    tl.addresses[1][t] = out[t].data_ptr();
    tl.sizes[t] = static_cast<int>(in[t].numel());
    const auto chunks = at::cuda::ATenCeilDiv(static_cast<uint64_t>(tl.sizes[t]), static_cast<uint64_t>(kChunk));
    for (uint64_t c = 0; c < chunks; c++, blocks++) {
      TORCH_CHECK(blocks < 32, "multi_tensor_scale: too many chunks");
      tl.block_to_tensor[blocks] = static_cast<int>(t);
      tl.block_to_chunk[blocks] = static_cast<int>(c);
    }
  }
  auto noop = at::zeros({1}, in[0].options().dtype(at::kInt));
  if (blocks == 0) return 0;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(in[0].scalar_type(), "multi_tensor_scale", [&] {
    multi_tensor_apply_kernel<<<blocks, 32, 0, at::cuda::getCurrentCUDAStream()>>>(
        tl, ScaleFunctor<scalar_t>(), static_cast<float>(scale), noop.data_ptr<int>(), static_cast<int>(planted));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return noop.item<int>();
}

// out = a * b elementwise through ATen's own pointwise apply (a <<<>>> launch in Torch's header).
at::Tensor apply_multiply(at::Tensor a, at::Tensor b) {
  TORCH_CHECK(at::cuda::check_device({a, b}), "apply_multiply: a and b must be on the current GPU"); // (nvdiffrast's check)
  auto out = a.clone();
  at::cuda::CUDA_tensor_apply2<float, float>(out, b, [] __device__(float& x, const float& y) { x *= y; });
  return out;
}

// out[i] = x[i] + x[i + 1] within a warp of 32 halves (x[31] + x[31] for the last).
at::Tensor pair_sums(at::Tensor x) {
  TORCH_CHECK(x.numel() == 32 && x.scalar_type() == at::kHalf, "pair_sums: 32 halves");
  auto out = at::empty_like(x);
  pair_sums_kernel<<<1, 32>>>(x.data_ptr<at::Half>(), out.data_ptr<at::Half>());
  return out;
}

// The sum of 32 halves, by atomicAdd.
at::Tensor half_total(at::Tensor x) {
  TORCH_CHECK(x.numel() == 32 && x.scalar_type() == at::kHalf, "half_total: 32 halves");
  auto total = at::zeros({1}, x.options());
  half_total_kernel<<<1, 32>>>(x.data_ptr<at::Half>(), total.data_ptr<at::Half>());
  return total;
}

// out[i] = max(x[i], x[i + 1]) within a warp of 32 halves.
at::Tensor pair_max(at::Tensor x) {
  TORCH_CHECK(x.numel() == 32 && x.scalar_type() == at::kHalf, "pair_max: 32 halves");
  auto out = at::empty_like(x);
  pair_max_kernel<<<1, 32>>>(x.data_ptr<at::Half>(), out.data_ptr<at::Half>());
  return out;
}
