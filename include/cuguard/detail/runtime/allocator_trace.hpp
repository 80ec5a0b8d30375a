// SPDX-License-Identifier: Apache-2.0
// A caching allocator's blocks, as its trace tells them (PyTorch's CUDA caching allocator:
// detail/adapters/torch_allocator_trace.hpp feeds it): each segment it took from the device and
// each block it handed out of one, until freed. Two uses: a T* converted to a cuguard::ptr in
// host code takes the bounds of the block that holds it (a host_hooks behind the lifetime
// registry), where the allocation holding it is the whole segment; and, asked for
// (CUGUARD_NVTX_POOLS=1), each segment is an NVTX memory pool (nvtxMemHeapRegister, a
// sub-allocator) and each block a region of it (nvtxMemRegionsRegister), the annotations
// compute-sanitizer reads, so that an unchanged kernel's access into a segment's bytes no live
// block holds (a block's rounding, a freed block, the free rest of the segment) is reported, as
// it is not when the segment is one cudaMalloc.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/violation.hpp>

#if __has_include(<nvtx3/nvToolsExtMem.h>) // (NVTX's memory extension: CUDA 12.1 and later)
#  include <nvtx3/nvToolsExtMem.h>
#  define CUGUARD_IMPL_NVTX_MEMORY 1
#else
#  define CUGUARD_IMPL_NVTX_MEMORY 0
#endif

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// NVTX's memory annotations of a caching allocator (CUGUARD_NVTX_POOLS=1): a segment a pool, a
/// block a region of it. Without NVTX's memory extension (before CUDA 12.1), none.
struct nvtx_pools {
#if CUGUARD_IMPL_NVTX_MEMORY
  static bool annotating() {
    static const bool on = [] {
      const char* value = platform::environment(platform::setting::nvtx_pools);
      return value != nullptr && value[0] == '1';
    }();
    return on;
  }
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t d = nvtxDomainCreateA("cuguard caching allocator");
    return d;
  }
  static nvtxMemHeapHandle_t register_heap(std::uintptr_t begin, std::size_t bytes) {
    nvtxMemVirtualRangeDesc_t range = {};
    range.ptr = reinterpret_cast<void*>(begin);
    range.size = bytes;
    nvtxMemHeapDesc_t heap = {};
    heap.extCompatID = NVTX_EXT_COMPATID_MEM;
    heap.structSize = sizeof heap;
    heap.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
    heap.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    heap.typeSpecificDescSize = sizeof range;
    heap.typeSpecificDesc = &range;
    return nvtxMemHeapRegister(domain(), &heap);
  }
  static void register_region(nvtxMemHeapHandle_t heap, std::uintptr_t begin, std::size_t bytes) {
    nvtxMemVirtualRangeDesc_t range = {};
    range.ptr = reinterpret_cast<void*>(begin);
    range.size = bytes;
    nvtxMemRegionsRegisterBatch_t batch = {};
    batch.extCompatID = NVTX_EXT_COMPATID_MEM;
    batch.structSize = sizeof batch;
    batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    batch.heap = heap;
    batch.regionCount = 1;
    batch.regionDescElementSize = sizeof range;
    batch.regionDescElements = &range;
    nvtxMemRegionsRegister(domain(), &batch);
  }
  static void unregister_region(std::uintptr_t begin) {
    nvtxMemRegionRef_t ref;
    ref.pointer = reinterpret_cast<const void*>(begin);
    nvtxMemRegionsUnregisterBatch_t batch = {};
    batch.extCompatID = NVTX_EXT_COMPATID_MEM;
    batch.structSize = sizeof batch;
    batch.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
    batch.refCount = 1;
    batch.refElementSize = sizeof ref;
    batch.refElements = &ref;
    nvtxMemRegionsUnregister(domain(), &batch);
  }
  /// A pool for the segment of `bytes` at `begin` (null: not annotating).
  static void* add_pool(std::uintptr_t begin, std::size_t bytes) { return annotating() ? register_heap(begin, bytes) : nullptr; }
  static void remove_pool(void* pool) {
    if (pool != nullptr) nvtxMemHeapUnregister(domain(), static_cast<nvtxMemHeapHandle_t>(pool));
  }
  static void add_region(void* pool, std::uintptr_t begin, std::size_t bytes) {
    register_region(static_cast<nvtxMemHeapHandle_t>(pool), begin, bytes);
  }
  static void remove_region(std::uintptr_t begin) { unregister_region(begin); }
#else
  static void* add_pool(std::uintptr_t, std::size_t) { return nullptr; }
  static void remove_pool(void*) {}
  static void add_region(void*, std::uintptr_t, std::size_t) {}
  static void remove_region(std::uintptr_t) {}
#endif
};

class allocator_trace final : public host_hooks {
 public:
  /// A segment of `bytes` at `begin` taken from device `device` (alloc) or given back.
  void segment(std::uintptr_t begin, std::size_t bytes, int device, bool alloc) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (alloc) {
      segments_[begin] = segment_info{bytes, device, nvtx_pools::add_pool(begin, bytes)};
      return;
    }
    const auto it = segments_.find(begin);
    if (it == segments_.end()) return;
    nvtx_pools::remove_pool(it->second.pool);
    blocks_.erase(blocks_.lower_bound(begin), blocks_.lower_bound(begin + it->second.bytes));
    segments_.erase(it);
  }

  /// A block of `bytes` at `begin` handed out (alloc) or freed.
  void block(std::uintptr_t begin, std::size_t bytes, int device, bool alloc) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (alloc) {
      blocks_[begin] = block_info{bytes, device};
      if (void* pool = pool_of(begin)) nvtx_pools::add_region(pool, begin, bytes);
      return;
    }
    const auto it = blocks_.find(begin);
    if (it == blocks_.end()) return;
    blocks_.erase(it);
    if (pool_of(begin) != nullptr) nvtx_pools::remove_region(begin);
  }

  /// The live block that holds `p` (or ends where `p` is). Where a tracked allocation holds it
  /// too (a segment cuguard tracks, a storage a view tracked), the smaller of the two bounds it,
  /// with the tracked allocation's lifetime.
  allocation_span locate(const void* p, std::size_t bytes) const override {
    allocation_span found = host_hooks::locate(p, bytes);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.upper_bound(a);
    if (it == blocks_.begin()) return found;
    --it;
    if (a - it->first > it->second.bytes) return found;
    if (found.tracked && (it->first < found.begin || it->first - found.begin + it->second.bytes > found.bytes ||
                          it->second.bytes >= found.bytes))
      return found;
    if (!found.tracked) {
      found.tracked = true;
      found.space = memory_space::device;
      found.device = it->second.device;
    }
    found.begin = it->first;
    found.bytes = it->second.bytes;
    return found;
  }

  /// The one trace of the process, its block bounds installed for pointers (never destroyed: an
  /// allocator may report frees after static destructors ran).
  static allocator_trace& get() {
    static allocator_trace* const trace = [] {
      auto* t = new allocator_trace;
      install_host_hooks(*t);
      return t;
    }();
    return *trace;
  }

 private:
  struct segment_info {
    std::size_t bytes;
    int device;
    void* pool; ///< its NVTX pool (null: none)
  };
  struct block_info {
    std::size_t bytes;
    int device;
  };

  /// The NVTX pool of the segment that holds `a` (null: none, or not annotating).
  void* pool_of(std::uintptr_t a) const {
    auto it = segments_.upper_bound(a);
    if (it == segments_.begin()) return nullptr;
    --it;
    return a - it->first < it->second.bytes ? it->second.pool : nullptr;
  }

  mutable std::mutex mutex_;
  std::map<std::uintptr_t, segment_info> segments_;
  std::map<std::uintptr_t, block_info> blocks_;
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
