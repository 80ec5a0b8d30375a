// SPDX-License-Identifier: Apache-2.0
// cuguard::torch: checked views of at::Tensor, launches on PyTorch's current stream, and reports
// that reach Python as Python exceptions. For PyTorch C++/CUDA extensions; needs the Torch
// headers (CMake target cuguard::torch, configured where Torch is found). Not included by
// <cuguard/cuguard.hpp>.
//
//   auto w = cuguard::torch::view<const float, 2>(weight, "weight");
//   auto x = CUGUARD_TORCH_VIEW(x, const float, 3);       // the label is the argument's name
//   cuguard::torch::launch(kernel, grid, block, w, x, out);
#pragma once

#include <cuguard/cuguard.hpp>
#include <cuguard/detail/adapters/torch_accessor.hpp>
#include <cuguard/detail/adapters/torch_errors.hpp>
#include <cuguard/detail/adapters/torch_view.hpp>
#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION
#  include <cuguard/detail/adapters/torch_launch.hpp> // launches, and <<<>>> of .cu files built under emulation
#endif

#include <ATen/ATen.h>
#include <ATen/TensorUtils.h>
#include <c10/util/Exception.h>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace torch {
/// A checked view of a tensor's elements: `view<const float, 2>(weight, "weight")`. Checks, with
/// a ValueError (c10::ValueError) naming the tensor, the value and what was expected: a defined,
/// strided tensor; its dtype (T: float, double, at::Half or __half, at::BFloat16 or
/// __nv_bfloat16, the integer types, bool); its number of dimensions (Rank); its device (under
/// emulation a CPU tensor, which host code and emulated kernels may both use; otherwise a CUDA or
/// a CPU tensor, and a kernel launched with a CPU tensor's view reports wrong_memory_space);
/// strides not negative; and that the view stays inside the tensor's storage. Non-contiguous
/// tensors give strided views; 0-element tensors give empty views. With checks on, a CPU
/// tensor's storage is tracked the first time a view is made of it (its deleter is wrapped), so
/// that a view of a tensor PyTorch has freed reports use_after_free naming the tensor (CUDA
/// tensors: docs/pytorch.md). `label` must outlive the
/// view (a string literal: CUGUARD_TORCH_VIEW uses the argument's name). A violation an earlier
/// kernel recorded and nothing raised (one launched with <<<>>> on a GPU) is raised first.
template <class T, std::size_t Rank, class Index = std::int64_t>
checked_view<T, Rank, Index> view(const at::Tensor& t, const char* label,
                                  cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::torch_adapter::as_torch_errors([&] { return detail::torch_adapter::view_of<T, Rank, Index>(t, label, where); });
}

/// A checked pointer to a tensor's first element, for a kernel parameter of type
/// cuguard::ptr<T> (`cuguard::torch::ptr<float>(x, "x")` where the launch passed
/// `x.data_ptr<float>()`): bounded by the elements the tensor's sizes and strides reach, named
/// `label` in reports, and checked as view() checks the tensor (a ValueError naming it). With
/// checks off, `t.data_ptr<T>()` checked the same way.
template <class T>
cuguard::ptr<T> ptr(const at::Tensor& t, const char* label,
                    cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::torch_adapter::as_torch_errors([&] { return detail::torch_adapter::pointer_of<T>(t, label, where); });
}

/// ATen's `t.packed_accessor32<T, N, PtrTraits>()`, checked and named: the tensor is checked as
/// view() checks it (dtype, rank, device, storage reach; a ValueError naming `label`), its
/// storage tracked for use after free, and a report of an access names `label`.
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32(const at::Tensor& t, const char* label,
                                                          cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::torch_adapter::as_torch_errors([&] { return detail::torch_adapter::accessor_view_of<T, N, std::int32_t>(t, label, where); });
}
/// ATen's `t.packed_accessor64<T, N, PtrTraits>()`, checked and named (see packed_accessor32).
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64(const at::Tensor& t, const char* label,
                                                          cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::torch_adapter::as_torch_errors([&] { return detail::torch_adapter::accessor_view_of<T, N, std::int64_t>(t, label, where); });
}
/// ATen's `t.packed_accessor<T, N, PtrTraits, index_t>()`, checked and named (see packed_accessor32).
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor(
    const at::Tensor& t, const char* label, cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::torch_adapter::as_torch_errors([&] { return detail::torch_adapter::accessor_view_of<T, N, index_t>(t, label, where); });
}

/// True where this build's kernels can use `t`'s memory: `t.is_cuda()` in a GPU build, and
/// `t.is_cpu()` under emulation, whose kernels run on CPU threads over CPU tensors. For an
/// extension's argument checks: `TORCH_CHECK(cuguard::torch::on_device(x), "x must be a CUDA tensor")`.
inline bool on_device(const at::Tensor& t) {
#if CUGUARD_IMPL_EMULATION
  return t.is_cpu();
#else
  return t.is_cuda();
#endif
}

/// ATen's `at::checkAllSameGPU(op, {{t1, "t1", 1}, ...})` in a GPU build; under emulation its CPU
/// meaning: every tensor is a CPU tensor, else a RuntimeError (c10::Error) naming the argument,
/// its position, its device and `op`.
inline void checkAllSameGPU(const char* op, std::initializer_list<at::TensorArg> tensors) {
#if CUGUARD_IMPL_EMULATION
  for (const at::TensorArg& t : tensors)
    TORCH_CHECK(!t->defined() || t->is_cpu(), "Expected tensor for argument #", t.pos, " '", t.name,
                "' to be a CPU tensor (this build runs kernels on CPU threads: emulation), but it is on ", t->device(),
                " (while checking arguments for ", op, ")");
#else
  at::checkAllSameGPU(op, at::ArrayRef<at::TensorArg>(tensors.begin(), tensors.size()));
#endif
}

// What launches kernels: in CUDA translation units and under emulation (as <cuguard/cuguard.hpp>
// gives the runtime). A host-only translation unit (an extension's binding .cpp) makes views.
#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION

/// The stream kernels of an op run on: PyTorch's current CUDA stream (the null stream under
/// emulation).
inline cudaStream_t current_stream() { return detail::torch_adapter::current_stream(); }

/// cuguard::check() on the current stream, its reports as PyTorch errors (see launch).
inline void check() {
  detail::torch_adapter::as_torch_errors([] { cuguard::check(current_stream()); });
}


/// Launches a kernel on the current stream: cuguard::launch, with its reports as PyTorch errors
/// (a violation out of range: IndexError; other violations and CUDA errors: RuntimeError; a bad
/// view argument: ValueError), so that a Python caller gets an exception and goes on. Where
/// launches are synchronous (emulation, CUGUARD_LAUNCH_BLOCKING=1) a violation of this kernel
/// is raised here, at the op that ran it; otherwise at the latest by the next torch::launch
/// (which polls the report channel first, without synchronizing: cuguard::poll), the next view,
/// accessor or pointer made of a tensor (the same poll) or torch::check().
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), cuguard::detail::grid_arg grid, dim3 block, Args&&... args) {
  detail::torch_adapter::launch_reporting(launch_config(grid.value, block, 0, current_stream(), nullptr, grid.where), kernel,
                                          kernel, std::forward<Args>(args)...);
}

/// The same with dynamic shared memory: `launch({grid, block, shared_bytes}, kernel, args...)`.
/// The stream given in the config is replaced by the current stream.
template <class... Params, class... Args>
void launch(launch_config config, void (*kernel)(Params...), Args&&... args) {
  config.stream = current_stream();
  detail::torch_adapter::launch_reporting(config, kernel, kernel, std::forward<Args>(args)...);
}

/// launch<kernel>(grid, block, args...) and launch<kernel>(config, args...): the same, the kernel
/// named at compile time, so that emulation can inline it into its loop over a block's threads
/// (see cuguard::launch<kernel>).
template <auto Kernel, class... Args>
void launch(cuguard::detail::grid_arg grid, dim3 block, Args&&... args) {
  detail::torch_adapter::launch_reporting(launch_config(grid.value, block, 0, current_stream(), nullptr, grid.where), Kernel,
                                          detail::kernel_call<Kernel>{}, std::forward<Args>(args)...);
}
template <auto Kernel, class... Args>
void launch(launch_config config, Args&&... args) {
  config.stream = current_stream();
  detail::torch_adapter::launch_reporting(config, Kernel, detail::kernel_call<Kernel>{}, std::forward<Args>(args)...);
}

#endif

} // namespace torch
CUGUARD_IMPL_END_NAMESPACE

/// A checked view of the tensor argument `tensor`, labelled with its own name:
/// `auto x = CUGUARD_TORCH_VIEW(x, const float, 3);` is `cuguard::torch::view<const float, 3>(x, "x")`.
#define CUGUARD_TORCH_VIEW(tensor, T, Rank) ::cuguard::torch::view<T, Rank>(tensor, #tensor)
