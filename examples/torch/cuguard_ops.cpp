// SPDX-License-Identifier: Apache-2.0
// A PyTorch extension whose custom ops are written with cuguard: an embedding lookup and a masked
// gather, registered with TORCH_LIBRARY as torch.ops.cuguard_demo.embedding and
// torch.ops.cuguard_demo.masked_gather, and torch.gather along dim 1 of a matrix
// (torch.ops.cuguard_demo.gather1). Built by torch.utils.cpp_extension (build.py): under
// emulation on CPU tensors, with nvcc on CUDA tensors. With checks on, an index past the end is an
// IndexError naming the kernel's line, the tensor, the index and where it came from.
#include <cuguard/torch.hpp>
#include <torch/library.h>

#include <cstdint>

using cuguard::checked_view;

// (Kernels outside an anonymous namespace: under emulation a report finds a kernel's name among
// the library's exported symbols.)

// out[i, :] = weight[ids[i], :]
__global__ void embedding_kernel(checked_view<const float, 2> weight, checked_view<const std::int64_t, 1> ids,
                                 checked_view<float, 2> out) {
  const auto row = cuguard::index_from(ids, blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(blockIdx.x, j) = weight(row, j);
}

// out[i, :] = input[mask_idx[i], :]: the rows a mask selected, by their positions.
__global__ void masked_gather_kernel(checked_view<const float, 2> input, checked_view<const std::int64_t, 1> mask_idx,
                                     checked_view<float, 2> out) {
  const auto row = cuguard::index_from(mask_idx, blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(blockIdx.x, j) = input(row, j); // cuguard-op-access: masked_gather
}

// out[i, j] = input[i, index[i, j]]: torch.gather(input, 1, index). One block per row.
__global__ void gather1_kernel(checked_view<const float, 2> input, checked_view<const std::int64_t, 2> index,
                               checked_view<float, 2> out) {
  const std::int64_t i = blockIdx.x;
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(i, j) = input(i, cuguard::index_from(index, i, j));
}

namespace {

// Each op views its tensor arguments first (a bad one is a ValueError naming it), then allocates
// its output and launches on the current stream (a report of the kernel is an IndexError).
at::Tensor embedding(const at::Tensor& weight, const at::Tensor& ids) {
  const auto w = CUGUARD_TORCH_VIEW(weight, const float, 2);
  const auto i = CUGUARD_TORCH_VIEW(ids, const std::int64_t, 1);
  at::Tensor out = at::empty({i.extent(0), w.extent(1)}, weight.options());
  if (i.extent(0) > 0) cuguard::torch::launch(embedding_kernel, i.extent(0), 64, w, i, CUGUARD_TORCH_VIEW(out, float, 2));
  return out;
}

at::Tensor masked_gather(const at::Tensor& input, const at::Tensor& mask_idx) {
  const auto in = CUGUARD_TORCH_VIEW(input, const float, 2);
  const auto idx = CUGUARD_TORCH_VIEW(mask_idx, const std::int64_t, 1);
  at::Tensor out = at::empty({idx.extent(0), in.extent(1)}, input.options());
  if (idx.extent(0) > 0)
    cuguard::torch::launch(masked_gather_kernel, idx.extent(0), 64, in, idx, CUGUARD_TORCH_VIEW(out, float, 2));
  return out;
}

at::Tensor gather1(const at::Tensor& input, const at::Tensor& index) {
  const auto in = CUGUARD_TORCH_VIEW(input, const float, 2);
  const auto idx = CUGUARD_TORCH_VIEW(index, const std::int64_t, 2);
  at::Tensor out = at::empty(index.sizes(), input.options());
  if (idx.extent(0) > 0 && idx.extent(1) > 0)
    cuguard::torch::launch(gather1_kernel, idx.extent(0), 64, in, idx, CUGUARD_TORCH_VIEW(out, float, 2));
  return out;
}

} // namespace

TORCH_LIBRARY(cuguard_demo, m) {
  m.def("embedding(Tensor weight, Tensor ids) -> Tensor", &embedding);
  m.def("masked_gather(Tensor input, Tensor mask_idx) -> Tensor", &masked_gather);
  m.def("gather1(Tensor input, Tensor index) -> Tensor", &gather1);
  // Waits for the ops' kernels and raises what they recorded (on a GPU launches are
  // asynchronous: a violation is raised by the next cuguard launch, or here).
  m.def("check() -> ()", [] { cuguard::torch::check(); });
}
