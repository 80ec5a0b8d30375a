// SPDX-License-Identifier: Apache-2.0
// The lifetime of tensors' storages for cuguard::torch (checks on): a CPU storage's deleter
// wrapped so that its free releases it in cuguard's registry, and, in a CUDA build of Torch, the
// caching allocator's completed frees followed.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/adapters/torch_tensor.hpp>
#include <cuguard/lifetime.hpp>

#include <ATen/ATen.h>
// A CUDA build of Torch (its CUDA headers are complete) outside emulation: views of CUDA
// tensors follow the caching allocator's frees where it reports them (Torch 2.2 and later).
#if !CUGUARD_IMPL_EMULATION && CUGUARD_IMPL_CHECKS && __has_include(<c10/cuda/CUDACachingAllocator.h>) && \
    __has_include(<c10/cuda/impl/cuda_cmake_macros.h>) && __has_include(<cuda_runtime_api.h>)
#  define CUGUARD_IMPL_TORCH_CUDA 1
#  include <c10/cuda/CUDACachingAllocator.h>
#  include <cuguard/detail/runtime/allocator_trace.hpp>
#else
#  define CUGUARD_IMPL_TORCH_CUDA 0
#endif

#include <cuda/std/source_location>

#include <cstdint>
#include <exception>
#include <mutex>
#include <unordered_map>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

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
/// the order of the block's stream, so that views of its tensors report use_after_free; and its
/// segments and blocks are told to the allocator trace (detail/runtime/allocator_trace.hpp: the
/// bounds of a T* converted to a cuguard::ptr, NVTX's pools where asked for). The
/// allocator calls it with its own lock held: it takes cuguard's locks only, which are never
/// held while calling into PyTorch.
struct free_follower {
  template <class Entry>
  void operator()(const Entry& e) const {
    const auto addr = static_cast<std::uintptr_t>(e.addr_);
    const auto bytes = static_cast<std::size_t>(e.size_);
    const int device = static_cast<int>(e.device_);
    allocator_trace& trace = allocator_trace::get();
    switch (e.action_) {
      case Entry::ALLOC: return trace.block(addr, bytes, device, true);
      case Entry::SEGMENT_ALLOC: return trace.segment(addr, bytes, device, true);
      case Entry::SEGMENT_FREE: return trace.segment(addr, bytes, device, false);
      case Entry::FREE_COMPLETED: break;
      default: return;
    }
    trace.block(addr, bytes, device, false);
    void* stream = e.stream_;
    (void)cuguard::detail::registry().release_live(
        reinterpret_cast<const void*>(addr), cuda::std::source_location::current("PyTorch's CUDA caching allocator", "", 0, 0),
        stream);
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
/// Attached as the extension loads, so that the blocks of the tensors it is called with are known
/// (those the allocator handed out before are not: load the extension before the model's tensors).
inline const bool cuda_frees_followed = follow_cuda_frees();

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

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
