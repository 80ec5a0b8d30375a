// SPDX-License-Identifier: Apache-2.0
// Written as differentiable rasterizers are: the toolkit's headers included one by one
// (<device_launch_parameters.h> too), CUB's umbrella header, its device-wide radix sort and scan
// over tensors' raw pointers with their temporary storage in a byte tensor, a CUB block primitive
// in a class template and over dynamic shared memory, cooperative groups, and launches as a formatter leaves them
// (`kernel << <grid, block >> > (...)`), cuRAND's device API, and dropout drawn from ATen's CUDA
// generator's Philox state (as xformers' attention). Nothing of cuguard: built unchanged.
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraphsUtils.cuh>
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <curand_kernel.h>
#include <device_launch_parameters.h>
#include <math_constants.h>
#include <vector_types.h>
#include <torch/extension.h>

namespace cg = cooperative_groups;

#define BLOCK 128

// For every item, one key per tile it touches (tiles [first[i], first[i] + count[i])), written at
// the item's offset in the inclusive scan of the counts: the key is (tile << 32 | item). An item
// culled late (first < 0: a rasterizer's gaussian whose radius came out NaN) writes nothing,
// though its tiles were counted: its keys are left as the allocation left them.
__global__ void duplicate_with_keys(int n, const int* first, const int* count, const int* offsets,
                                    uint64_t* keys, int* values) {
  auto idx = cg::this_grid().thread_rank();
  if (idx >= static_cast<unsigned long long>(n) || first[idx] < 0) return;
  int at = idx == 0 ? 0 : offsets[idx - 1];
  for (int t = 0; t < count[idx]; t++) {
    keys[at] = static_cast<uint64_t>(first[idx] + t) << 32 | static_cast<uint32_t>(idx);
    values[at] = static_cast<int>(idx);
    at++;
  }
}

// Each block's inclusive prefix sums of its items, by CUB's BlockScan in a class template (the
// alias's name is the primitive's, as such code writes it).
template <int Threads>
struct BlockPrefix {
  using BlockScan = cub::BlockScan<float, Threads>;
  __device__ static void run(const float* in, float* out, int n) {
    __shared__ typename BlockScan::TempStorage temp;
    const int i = blockIdx.x * Threads + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    BlockScan(temp).InclusiveSum(v, v);
    if (i < n) out[i] = v * (CUDART_PI_F / CUDART_PI_F);
  }
};

__global__ void block_prefix_kernel(const float* in, float* out, int n) { BlockPrefix<BLOCK>::run(in, out, n); }

// The same with BlockScan's TempStorage laid over dynamic shared memory, as selective-scan kernels
// write it (`reinterpret_cast<TempStorage&>(smem_)`).
__global__ void block_prefix_dynamic_kernel(const float* in, float* out, int n) {
  using BlockScan = cub::BlockScan<float, BLOCK>;
  extern __shared__ char smem_[];
  auto& temp = reinterpret_cast<typename BlockScan::TempStorage&>(smem_);
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  BlockScan(temp).InclusiveSum(v, v);
  if (i < n) out[i] = v;
}

// The keys and values of every (item, tile) pair, sorted by key: CUB's DeviceScan of the counts,
// the duplication, then CUB's DeviceRadixSort, each sized first with a null temporary storage.
std::vector<torch::Tensor> bin_items(torch::Tensor first, torch::Tensor count) {
  const int n = static_cast<int>(count.numel());
  auto offsets = torch::empty_like(count);
  size_t scan_bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, count.data_ptr<int>(), offsets.data_ptr<int>(), n);
  auto scan_temp = torch::empty({static_cast<int64_t>(scan_bytes)}, count.options().dtype(torch::kByte));
  cub::DeviceScan::InclusiveSum(scan_temp.data_ptr(), scan_bytes, count.data_ptr<int>(), offsets.data_ptr<int>(), n);
  int total = 0;
  if (n > 0) cudaMemcpy(&total, offsets.data_ptr<int>() + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  auto keys = torch::empty({total}, count.options().dtype(torch::kInt64));
  auto values = torch::empty({total}, count.options());
  duplicate_with_keys << <(n + BLOCK - 1) / BLOCK, BLOCK >> > (
      n, first.data_ptr<int>(), count.data_ptr<int>(), offsets.data_ptr<int>(),
      reinterpret_cast<uint64_t*>(keys.data_ptr<int64_t>()), values.data_ptr<int>());
  auto sorted_keys = torch::empty_like(keys);
  auto sorted_values = torch::empty_like(values);
  size_t sort_bytes = 0;
  auto* k_in = reinterpret_cast<uint64_t*>(keys.data_ptr<int64_t>());
  auto* k_out = reinterpret_cast<uint64_t*>(sorted_keys.data_ptr<int64_t>());
  cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k_in, k_out, values.data_ptr<int>(),
                                  sorted_values.data_ptr<int>(), total);
  auto sort_temp = torch::empty({static_cast<int64_t>(sort_bytes)}, count.options().dtype(torch::kByte));
  cub::DeviceRadixSort::SortPairs(sort_temp.data_ptr(), sort_bytes, k_in, k_out, values.data_ptr<int>(),
                                  sorted_values.data_ptr<int>(), total);
  return {sorted_keys, sorted_values};
}

// One uniform number in (0, 1] per thread, from cuRAND's XORWOW state seeded per thread.
__global__ void uniform_kernel(float* out, int n, unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState state;
  curand_init(seed, i, 0, &state);
  out[i] = curand_uniform(&state);
}

torch::Tensor uniform(int64_t n, int64_t seed, torch::Tensor like) {
  auto out = torch::empty({n}, like.options().dtype(torch::kFloat));
  uniform_kernel<<<(static_cast<int>(n) + BLOCK - 1) / BLOCK, BLOCK>>>(out.data_ptr<float>(), static_cast<int>(n),
                                                                       static_cast<unsigned long long>(seed));
  return out;
}

// A recursive __forceinline__ function (xformers' sputnik: Log2): nvcc inlines what it can.
__host__ __device__ __forceinline__ int log2_floor(int x) {
  if (x >>= 1) return log2_floor(x) + 1;
  return 0;
}

// x / keep where a uniform number of cuRAND's Philox, seeded and offset by ATen's generator, is
// below `keep`; else 0.
__global__ void dropout_kernel(const float* x, float* out, int n, float keep, at::PhiloxCudaState philox) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || log2_floor(static_cast<int>(blockDim.x)) > 30) return;
  const auto seeds = at::cuda::philox::unpack(philox);
  curandStatePhilox4_32_10_t state;
  curand_init(std::get<0>(seeds), i, std::get<1>(seeds), &state);
  out[i] = curand_uniform(&state) < keep ? x[i] / keep : 0.0f;
}

torch::Tensor dropout(torch::Tensor x, double keep) {
  auto out = torch::empty_like(x);
  auto* gen = at::get_generator_or_default<at::CUDAGeneratorImpl>(c10::nullopt, at::cuda::detail::getDefaultCUDAGenerator());
  at::PhiloxCudaState philox;
  {
    std::lock_guard<std::mutex> lock(gen->mutex_);
    philox = gen->philox_cuda_state(4);
  }
  at::cuda::assertNotCapturing("dropout");
  const int n = static_cast<int>(x.numel());
  dropout_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x.data_ptr<float>(), out.data_ptr<float>(), n,
                                                     static_cast<float>(keep), philox);
  return out;
}

// An optional input given as an empty tensor (`torch.Tensor([])`), tested as a null pointer.
__global__ void optional_kernel(const float* opt, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = opt != nullptr ? opt[i] : 1.0f;
}

torch::Tensor optional_or_one(torch::Tensor opt, int64_t n) {
  auto out = torch::empty({n}, opt.options().dtype(torch::kFloat));
  optional_kernel<<<1, BLOCK>>>(opt.data_ptr<float>(), out.data_ptr<float>(), static_cast<int>(n));
  return out;
}

torch::Tensor block_prefix(torch::Tensor x, bool dynamic) {
  const int n = static_cast<int>(x.numel());
  auto out = torch::empty_like(x);
  if (dynamic)
    block_prefix_dynamic_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK, sizeof(cub::BlockScan<float, BLOCK>::TempStorage)>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), n);
  else
    block_prefix_kernel<<< (n + BLOCK - 1) / BLOCK,
                           BLOCK >>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
