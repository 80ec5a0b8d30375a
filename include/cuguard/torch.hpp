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
#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION
#  include <cuguard/detail/runtime/chevron.hpp> // <<<>>> launches of .cu files built under emulation
#endif

#include <ATen/ATen.h>
#include <ATen/TensorUtils.h>
#include <c10/util/Exception.h>
#if defined(__CUDACC__) && !CUGUARD_IMPL_EMULATION
#  include <c10/cuda/CUDAStream.h>
#endif
// A CUDA build of Torch (its CUDA headers are complete) outside emulation: views of CUDA
// tensors follow the caching allocator's frees where it reports them (Torch 2.2 and later).
#if !CUGUARD_IMPL_EMULATION && CUGUARD_IMPL_CHECKS && __has_include(<c10/cuda/CUDACachingAllocator.h>) && \
    __has_include(<c10/cuda/impl/cuda_cmake_macros.h>) && __has_include(<cuda_runtime_api.h>)
#  define CUGUARD_IMPL_TORCH_CUDA 1
#  include <c10/cuda/CUDACachingAllocator.h>
#else
#  define CUGUARD_IMPL_TORCH_CUDA 0
#endif
#if __has_include(<cuda_fp16.h>)
#  include <cuda_fp16.h>
#endif
#if __has_include(<cuda_bf16.h>)
#  include <cuda_bf16.h>
#endif

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <type_traits>
#include <initializer_list>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace torch {
namespace detail {

/// The ScalarType of a tensor whose elements a view of T reads.
template <class T>
struct scalar_type_of;
#define CUGUARD_IMPL_SCALAR(T, S)                                \
  template <>                                                    \
  struct scalar_type_of<T> {                                     \
    static constexpr c10::ScalarType value = c10::ScalarType::S; \
  };
CUGUARD_IMPL_SCALAR(float, Float)
CUGUARD_IMPL_SCALAR(double, Double)
CUGUARD_IMPL_SCALAR(at::Half, Half)
CUGUARD_IMPL_SCALAR(at::BFloat16, BFloat16)
CUGUARD_IMPL_SCALAR(bool, Bool)
CUGUARD_IMPL_SCALAR(std::int8_t, Char)
CUGUARD_IMPL_SCALAR(std::uint8_t, Byte)
CUGUARD_IMPL_SCALAR(std::int16_t, Short)
CUGUARD_IMPL_SCALAR(std::int32_t, Int)
CUGUARD_IMPL_SCALAR(std::int64_t, Long)
#if __has_include(<cuda_fp16.h>)
CUGUARD_IMPL_SCALAR(__half, Half)
#endif
#if __has_include(<cuda_bf16.h>)
CUGUARD_IMPL_SCALAR(__nv_bfloat16, BFloat16)
#endif
#undef CUGUARD_IMPL_SCALAR

/// "[2, 3]"
inline std::string list_of(c10::IntArrayRef values) {
  std::string s = "[";
  for (std::size_t r = 0; r < values.size(); ++r) s += (r ? ", " : "") + std::to_string(values[r]);
  return s + "]";
}

/// A bad tensor argument: a ValueError in Python, the message ending with the caller's line.
[[noreturn]] inline void fail(const char* label, const std::string& message, const cuda::std::source_location& where) {
  throw c10::ValueError({where.function_name(), where.file_name(), static_cast<std::uint32_t>(where.line())},
                        std::string("'") + (label ? label : "") + "' " + message + "\n  at " + where.file_name() + ":" +
                            std::to_string(where.line()) + " in " + where.function_name());
}

/// The DataPtr of a storage, to wrap its deleter: without the checks a newer Torch makes on
/// mutable access (which would materialize a copy-on-write storage); older Torch (1.x) has only
/// data_ptr().
template <class Storage>
auto mutable_data_ptr_of(Storage& s, int) -> decltype(s._mutable_data_ptr_no_checks()) {
  return s._mutable_data_ptr_no_checks();
}
template <class Storage>
c10::DataPtr& mutable_data_ptr_of(Storage& s, long) {
  return s.data_ptr();
}

/// The address of a tensor's first element, for a view of T: read-only access for a const T
/// where Torch has it (const_data_ptr(), which leaves a copy-on-write tensor as it is).
template <class T, class Tensor>
auto data_of(const Tensor& t, int) -> decltype(t.const_data_ptr()) {
  if constexpr (std::is_const<T>::value) return t.const_data_ptr();
  else return t.data_ptr();
}
template <class T, class Tensor>
const void* data_of(const Tensor& t, long) {
  return t.data_ptr();
}

#if CUGUARD_IMPL_CHECKS
/// A storage whose deleter cuguard wrapped: the deleter PyTorch gave it and its data.
struct wrapped_storage {
  c10::DeleterFnPtr original;
  const void* data;
};

inline std::mutex& storages_mutex() {
  static std::mutex* m = new std::mutex; // never destroyed: storages die during static destruction too
  return *m;
}
inline std::unordered_map<void*, wrapped_storage>& wrapped_storages() {
  static auto* m = new std::unordered_map<void*, wrapped_storage>;
  return *m;
}

/// The deleter of a tracked storage: releases its allocation in cuguard's registry (views of it
/// report use_after_free from now on), then calls PyTorch's own deleter.
inline void release_storage(void* context) {
  wrapped_storage s{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(storages_mutex());
    auto found = wrapped_storages().find(context);
    if (found == wrapped_storages().end()) return; // cannot happen: only wrapped storages get here
    s = found->second;
    wrapped_storages().erase(found);
  }
  cuguard::release(s.data, cuda::std::source_location::current("the deleter of a PyTorch storage", "", 0, 0));
  if (s.original != nullptr) s.original(context);
}

/// Tracks the storage of a CPU tensor `t` (once: its deleter is wrapped by release_storage), so
/// that views of it carry a lifetime token and report use_after_free once PyTorch frees it, even
/// where the allocator hands the block to another tensor. Only pageable CPU storages: PyTorch's
/// CUDA caching allocator and pinned host allocator recognise their blocks by their deleter
/// (record_stream would skip a wrapped one), so those are left as they are.
inline void track_storage(const at::Tensor& t, const char* label, memory_space space, int device) {
  if (!t.is_cpu() || t.is_pinned()) return;
  c10::DataPtr& data = mutable_data_ptr_of(*t.storage().unsafeGetStorageImpl(), 0);
  void* context = data.get_context();
  if (data.get() == nullptr || context == nullptr || data.get_deleter() == &release_storage) return;
  {
    std::lock_guard<std::mutex> lock(storages_mutex());
    const c10::DeleterFnPtr original = data.get_deleter();
    if (!data.compare_exchange_deleter(original, &release_storage)) return;
    wrapped_storages()[context] = {original, data.get()};
  }
  cuguard::track(data.get(), t.storage().nbytes(), label, space, device,
                 cuda::std::source_location::current("a PyTorch storage", "", 0, 0));
}

#if CUGUARD_IMPL_TORCH_CUDA
/// What the CUDA caching allocator calls on every event of its trace: a free that completed
/// (the block may be handed out again from now on) releases the block in cuguard's registry, in
/// the order of the block's stream, so that views of its tensors report use_after_free. The
/// allocator calls it with its own lock held: it takes cuguard's locks only, which are never
/// held while calling into PyTorch.
struct free_follower {
  template <class Entry>
  void operator()(const Entry& e) const {
    if (e.action_ != Entry::FREE_COMPLETED) return;
    void* stream = e.stream_;
    (void)cuguard::detail::registry().release_live(
        reinterpret_cast<const void*>(static_cast<std::uintptr_t>(e.addr_)),
        cuda::std::source_location::current("PyTorch's CUDA caching allocator", "", 0, 0), stream);
  }
};

/// Attaches free_follower to the allocator, where it has a trace hook (Torch 2.2 and later).
template <class Allocator>
auto attach_free_follower(Allocator* a, int) -> decltype(a->attachAllocatorTraceTracker(free_follower{}), bool()) {
  if (a == nullptr) return false;
  try {
    a->attachAllocatorTraceTracker(free_follower{});
    return true;
  } catch (const std::exception&) { // an allocator backend without the hook (cudaMallocAsync)
    return false;
  }
}
template <class Allocator>
bool attach_free_follower(Allocator*, long) {
  return false;
}

inline bool follow_cuda_frees() {
  static const bool following = attach_free_follower(c10::cuda::CUDACachingAllocator::get(), 0);
  return following;
}

/// Tracks the storage of a CUDA tensor (once per block) where the caching allocator reports
/// its frees: blocks of other allocators (from_blob, other backends) are left untracked, since
/// their frees would go unseen.
inline void track_cuda_storage(const at::Tensor& t, const char* label, int device) {
  if (!t.is_cuda() || !follow_cuda_frees()) return;
  const c10::DataPtr& data = t.storage().data_ptr();
  if (data.get() == nullptr || data.get_deleter() != c10::cuda::CUDACachingAllocator::get()->raw_deleter()) return;
  cuguard::detail::registry().track(data.get(), t.storage().nbytes(), label, memory_space::device, device,
                                    cuda::std::source_location::current("PyTorch's CUDA caching allocator", "", 0, 0),
                                    /*once=*/true);
}
#endif
#endif

} // namespace detail

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
/// tensors: not yet, see README). `label` must outlive the
/// view (a string literal: CUGUARD_TORCH_VIEW uses the argument's name).
template <class T, std::size_t Rank, class Index = std::int64_t>
checked_view<T, Rank, Index> view(const at::Tensor& t, const char* label,
                                  cuda::std::source_location where = cuda::std::source_location::current()) {
  using value = std::remove_cv_t<T>;
  if (!t.defined()) detail::fail(label, "is an undefined tensor", where);
  if (t.layout() != c10::kStrided || !t.has_storage()) {
    std::ostringstream layout;
    layout << t.layout();
    detail::fail(label, "has layout " + layout.str() + ", expected a strided tensor", where);
  }
  const c10::ScalarType expected = detail::scalar_type_of<value>::value;
  if (t.scalar_type() != expected)
    detail::fail(label, std::string("has dtype ") + c10::toString(t.scalar_type()) + ", expected " + c10::toString(expected),
                 where);
  if (t.dim() != static_cast<std::int64_t>(Rank))
    detail::fail(label, "has " + std::to_string(t.dim()) + " dimensions, expected " + std::to_string(Rank), where);
#if CUGUARD_IMPL_EMULATION
  if (!t.is_cpu())
    detail::fail(label, "is on " + t.device().str() + ", expected a CPU tensor: this build runs kernels on CPU threads (emulation)",
                 where);
#else
  if (!t.is_cpu() && !t.is_cuda()) detail::fail(label, "is on " + t.device().str() + ", expected a CUDA or CPU tensor", where);
#endif
  std::int64_t extents[Rank];
  std::int64_t strides[Rank];
  // The largest element offset from the first (saturated: a storage bounds the answer anyway).
  std::uint64_t largest = 0;
  bool empty = false;
  for (std::size_t r = 0; r < Rank; ++r) {
    extents[r] = t.size(static_cast<std::int64_t>(r));
    strides[r] = t.stride(static_cast<std::int64_t>(r));
    if (strides[r] < 0)
      detail::fail(label, "has stride " + std::to_string(strides[r]) + " in dim " + std::to_string(r) +
                              ": negative strides are not supported",
                   where);
    empty |= extents[r] == 0;
    largest = cuguard::detail::add_reach(largest, static_cast<std::uint64_t>(extents[r]), static_cast<std::uint64_t>(strides[r]));
  }
  if (!empty) {
    const auto offset = static_cast<std::uint64_t>(t.storage_offset());
    const std::uint64_t held = t.storage().nbytes() / sizeof(T);
    if (largest >= held || offset > held - 1 - largest)
      detail::fail(label, "reaches element " + std::to_string(offset + largest) + " of its storage, which holds " +
                              std::to_string(held) + " elements (storage_offset " + std::to_string(offset) + ", sizes " +
                              detail::list_of(t.sizes()) + ", strides " + detail::list_of(t.strides()) + ")",
                   where);
  }
  // Under emulation a CPU tensor is memory both host code and the emulated kernels may touch.
  const memory_space space = emulated ? memory_space::managed : t.is_cuda() ? memory_space::device : memory_space::host;
  const int device = emulated ? 0 : t.is_cuda() ? t.device().index() : -1;
#if CUGUARD_IMPL_CHECKS
  detail::track_storage(t, label, space, device);
#endif
#if CUGUARD_IMPL_TORCH_CUDA
  detail::track_cuda_storage(t, label, device);
#endif
  T* data = empty ? nullptr : static_cast<T*>(const_cast<void*>(detail::data_of<T>(t, 0)));
  checked_view<T, Rank, Index> v(data, extents, strides, label, where);
  cuguard::detail::view_internals::set_memory(v, space, device);
  return v;
}

namespace detail {
/// view() for an accessor with index_t: a 32-bit accessor needs every offset to fit 32 bits.
template <class T, std::size_t N, class index_t>
accessor_view<T, N, index_t> accessor_view_of(const at::Tensor& t, const char* label,
                                              const cuda::std::source_location& where) {
  using VI = view_index_t<index_t>;
  if (t.defined() && t.numel() > static_cast<std::int64_t>(cuguard::detail::max_of<VI>))
    fail(label, "has " + std::to_string(t.numel()) + " elements, more than an accessor with " +
                    std::to_string(8 * sizeof(index_t)) + "-bit indices can reach (packed_accessor64)",
         where);
  return view<T, N, VI>(t, label, where);
}
} // namespace detail

/// ATen's `t.packed_accessor32<T, N, PtrTraits>()`, checked and named: the tensor is checked as
/// view() checks it (dtype, rank, device, storage reach; a ValueError naming `label`), its
/// storage tracked for use after free, and a report of an access names `label`.
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32(const at::Tensor& t, const char* label,
                                                          cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::accessor_view_of<T, N, std::int32_t>(t, label, where);
}
/// ATen's `t.packed_accessor64<T, N, PtrTraits>()`, checked and named (see packed_accessor32).
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64(const at::Tensor& t, const char* label,
                                                          cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::accessor_view_of<T, N, std::int64_t>(t, label, where);
}
/// ATen's `t.packed_accessor<T, N, PtrTraits, index_t>()`, checked and named (see packed_accessor32).
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor(
    const at::Tensor& t, const char* label, cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::accessor_view_of<T, N, index_t>(t, label, where);
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
inline cudaStream_t current_stream() {
#if defined(__CUDACC__) && !CUGUARD_IMPL_EMULATION
  return c10::cuda::getCurrentCUDAStream().stream();
#else
  return nullptr;
#endif
}

namespace detail {
/// A cuguard report as the PyTorch error Python shows: IndexError for an index out of range
/// (out_of_bounds, index_overflow), RuntimeError (c10::Error) for the others, the whole report
/// as the message.
template <class F>
void as_torch_errors(F&& f) {
  try {
    f();
  } catch (const violation_error& e) {
    const violation_kind k = e.report().kind;
    const c10::SourceLocation at{e.report().function, e.report().file, e.report().line};
    if (k == violation_kind::out_of_bounds || k == violation_kind::index_overflow) throw c10::IndexError(at, e.what());
    throw c10::Error(at, e.what());
  } catch (const cuda_error& e) {
    throw c10::Error({__func__, __FILE__, static_cast<std::uint32_t>(__LINE__)}, e.what());
  } catch (const argument_error& e) {
    throw c10::ValueError({__func__, __FILE__, static_cast<std::uint32_t>(__LINE__)}, e.what());
  }
}
} // namespace detail

/// cuguard::check() on the current stream, its reports as PyTorch errors (see launch).
inline void check() {
  detail::as_torch_errors([] { cuguard::check(current_stream()); });
}

namespace detail {
/// cuguard::launch on config.stream, its reports as PyTorch errors: polls the report channel
/// first, and under emulation checks after the kernel (see launch).
template <class... Params, class... Args>
void launch_reporting(const launch_config& config, void (*kernel)(Params...), Args&&... args) {
  as_torch_errors([&] {
    cuguard::poll(config.stream);
    cuguard::launch(config, kernel, std::forward<Args>(args)...);
    if (emulated) cuguard::check(config.stream);
  });
}

/// torch::launch's way of starting a kernel, for rewritten <<<>>> launches.
struct torch_launch {
  template <class... Params, class... Args>
  static void run(const launch_config& config, void (*kernel)(Params...), Args&&... args) {
    launch_reporting(config, kernel, std::forward<Args>(args)...);
  }
};

/// What `kernel<<<grid, block, shared, stream>>>(args)` becomes in an extension's .cu file built
/// by cuguard.torch under emulation: torch::launch on the stream given, else the current one.
template <class... Params>
cuguard::detail::chevron_launch<torch_launch, Params...> chevron(void (*kernel)(Params...),
                                                                 const cuda::std::source_location& site, dim3 grid,
                                                                 dim3 block, std::size_t shared_bytes = 0,
                                                                 cudaStream_t stream = nullptr) {
  return {kernel, launch_config(grid, block, shared_bytes, stream != nullptr ? stream : current_stream(), nullptr, site)};
}
} // namespace detail

/// Launches a kernel on the current stream: cuguard::launch, with its reports as PyTorch errors
/// (a violation out of range: IndexError; other violations and CUDA errors: RuntimeError; a bad
/// view argument: ValueError), so that a Python caller gets an exception and goes on. Where
/// launches are synchronous (emulation, CUGUARD_LAUNCH_BLOCKING=1) a violation of this kernel
/// is raised here, at the op that ran it; otherwise at the latest by the next torch::launch
/// (which polls the report channel first, without synchronizing: cuguard::poll) or
/// torch::check().
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), cuguard::detail::grid_arg grid, dim3 block, Args&&... args) {
  detail::launch_reporting(launch_config(grid.value, block, 0, current_stream(), nullptr, grid.where), kernel,
                           std::forward<Args>(args)...);
}

/// The same with dynamic shared memory: `launch({grid, block, shared_bytes}, kernel, args...)`.
/// The stream given in the config is replaced by the current stream.
template <class... Params, class... Args>
void launch(launch_config config, void (*kernel)(Params...), Args&&... args) {
  config.stream = current_stream();
  detail::launch_reporting(config, kernel, std::forward<Args>(args)...);
}

#endif

} // namespace torch
CUGUARD_IMPL_END_NAMESPACE

/// A checked view of the tensor argument `tensor`, labelled with its own name:
/// `auto x = CUGUARD_TORCH_VIEW(x, const float, 3);` is `cuguard::torch::view<const float, 3>(x, "x")`.
#define CUGUARD_TORCH_VIEW(tensor, T, Rank) ::cuguard::torch::view<T, Rank>(tensor, #tensor)
