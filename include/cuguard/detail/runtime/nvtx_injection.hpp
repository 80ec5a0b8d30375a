// SPDX-License-Identifier: Apache-2.0
// cuguard as the NVTX tool of the memory extension under emulation: the calls of
// nvtx3/nvToolsExtMem.h (and nvToolsExtMemCudaRt.h's), each into detail/runtime/nvtx_memory.hpp,
// and the injection entry NVTX looks up among the process's symbols, which fills the extension's
// function slots with them (weak: one per program; NVTX_INJECTION64_PATH, where set, comes first).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/init_check.hpp>
#include <cuguard/detail/runtime/nvtx_memory.hpp>

#include <nvtx3/nvToolsExtMem.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {
namespace nvtx_calls {

/// The `i`th element of an NVTX batch's array of elements `size` bytes apart.
template <class T>
const T& element(const void* elements, std::size_t size, std::size_t i) {
  return *reinterpret_cast<const T*>(static_cast<const unsigned char*>(elements) + i * size);
}
inline std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
inline nvtx_memory::pool* pool_of(nvtxMemHeapHandle_t h) { return reinterpret_cast<nvtx_memory::pool*>(h); }

inline nvtxMemHeapHandle_t heap_register(nvtxDomainHandle_t, const nvtxMemHeapDesc_t* desc) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  if (desc == nullptr) return nullptr;
  nvtx_memory::pool p{0, 0, {}}; // (a layout heap, or another kind: no bytes, so no address is in it)
  if (desc->usage == NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR && desc->type == NVTX_MEM_TYPE_VIRTUAL_ADDRESS &&
      desc->typeSpecificDesc != nullptr) {
    const auto& range = *static_cast<const nvtxMemVirtualRangeDesc_t*>(desc->typeSpecificDesc);
    p.begin = address(range.ptr);
    p.bytes = range.size;
  }
  m.pools.push_back(p);
  __atomic_store_n(&nvtx_active, true, __ATOMIC_RELEASE);
  return reinterpret_cast<nvtxMemHeapHandle_t>(&m.pools.back());
}
inline void heap_unregister(nvtxDomainHandle_t, nvtxMemHeapHandle_t heap) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  m.pools.remove_if([&](const nvtx_memory::pool& p) { return &p == pool_of(heap); });
}
inline void heap_reset(nvtxDomainHandle_t, nvtxMemHeapHandle_t heap) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (nvtx_memory::pool& p : m.pools)
    if (&p == pool_of(heap)) p.regions.clear();
}
inline void regions_register(nvtxDomainHandle_t, const nvtxMemRegionsRegisterBatch_t* desc) {
  if (desc == nullptr || desc->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS || desc->heap == nullptr) return;
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (std::size_t i = 0; i < desc->regionCount; ++i) {
    const auto& r = element<nvtxMemVirtualRangeDesc_t>(desc->regionDescElements, desc->regionDescElementSize, i);
    pool_of(desc->heap)->regions[address(r.ptr)] = r.size;
    if (desc->regionHandleElementsOut != nullptr)
      desc->regionHandleElementsOut[i] = reinterpret_cast<nvtxMemRegionHandle_t>(const_cast<void*>(r.ptr));
  }
}
inline void regions_resize(nvtxDomainHandle_t, const nvtxMemRegionsResizeBatch_t* desc) {
  if (desc == nullptr || desc->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS) return;
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (std::size_t i = 0; i < desc->regionDescCount; ++i) {
    const auto& r = element<nvtxMemVirtualRangeDesc_t>(desc->regionDescElements, desc->regionDescElementSize, i);
    for (nvtx_memory::pool& p : m.pools) {
      auto it = p.regions.find(address(r.ptr));
      if (it != p.regions.end()) it->second = r.size;
    }
  }
}
/// The address a region reference names (a handle is the region's address, as regions_register gives it).
inline std::uintptr_t referenced(const nvtxMemRegionRef_t& r) { return address(r.pointer); }
inline void regions_unregister(nvtxDomainHandle_t, const nvtxMemRegionsUnregisterBatch_t* desc) {
  if (desc == nullptr) return;
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (std::size_t i = 0; i < desc->refCount; ++i) {
    const std::uintptr_t at = referenced(element<nvtxMemRegionRef_t>(desc->refElements, desc->refElementSize, i));
    for (nvtx_memory::pool& p : m.pools) p.regions.erase(at);
  }
}
/// Names the allocations the regions start (the name is kept for the process).
inline void regions_name(nvtxDomainHandle_t, const nvtxMemRegionsNameBatch_t* desc) {
  if (desc == nullptr) return;
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (std::size_t i = 0; i < desc->regionCount; ++i) {
    const auto& d = element<nvtxMemRegionNameDesc_t>(desc->regionElements, desc->regionElementSize, i);
    if (d.nameType != NVTX_MESSAGE_TYPE_ASCII || d.name.ascii == nullptr) continue;
    const char* name = m.names.insert(d.name.ascii).first->c_str();
    backend::emulated_memory& mem = backend::memory();
    const std::lock_guard<std::mutex> blocks(mem.mutex);
    auto it = mem.blocks.find(referenced(d.region));
    if (it != mem.blocks.end()) it->second.label = name;
  }
}
inline nvtx_memory::permissions* permissions_of(nvtxMemPermissionsHandle_t h) {
  return reinterpret_cast<nvtx_memory::permissions*>(h);
}
inline void permissions_assign(nvtxDomainHandle_t, const nvtxMemPermissionsAssignBatch_t* desc) {
  if (desc == nullptr || desc->permissions == nullptr) return;
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (std::size_t i = 0; i < desc->regionCount; ++i) {
    const auto& d = element<nvtxMemPermissionsAssignRegionDesc_t>(desc->regionElements, desc->regionElementSize, i);
    const std::uintptr_t at = referenced(d.region);
    auto& assigned = permissions_of(desc->permissions)->assigned;
    if ((d.flags & NVTX_MEM_PERMISSIONS_REGION_FLAGS_RESET) != 0) assigned.erase(at);
    else if (const std::size_t bytes = region_bytes(m, at)) assigned[at] = {bytes, d.flags};
  }
  __atomic_store_n(&nvtx_active, true, __ATOMIC_RELEASE);
}
inline nvtxMemPermissionsHandle_t permissions_create(nvtxDomainHandle_t, int32_t) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  m.objects.push_back({false, {}});
  return reinterpret_cast<nvtxMemPermissionsHandle_t>(&m.objects.back());
}
inline void permissions_destroy(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t h) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  if (h != nullptr && permissions_of(h) != &m.objects.front())
    m.objects.remove_if([&](const nvtx_memory::permissions& o) { return &o == permissions_of(h); });
}
inline void permissions_reset(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t h) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  if (h != nullptr) permissions_of(h)->assigned.clear();
}
/// Bound to a stream (emulation has one order of work): from now on, until unbound.
inline void permissions_bind(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t h, uint32_t, uint32_t) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  if (h != nullptr) permissions_of(h)->bound = true;
}
inline void permissions_unbind(nvtxDomainHandle_t, uint32_t) {
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (auto it = std::next(m.objects.begin()); it != m.objects.end(); ++it) it->bound = false;
}
inline nvtxMemPermissionsHandle_t process_wide(nvtxDomainHandle_t) {
  return reinterpret_cast<nvtxMemPermissionsHandle_t>(&nvtx().objects.front());
}
inline nvtxMemPermissionsHandle_t device_wide(nvtxDomainHandle_t d, int) { return process_wide(d); }
inline void set_peer_access(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t, int, uint32_t) {}

/// nvtxMemCudaMarkInitialized's batch (nvToolsExtMemCudaRt.h, which needs the CUDA headers).
struct mark_initialized_batch {
  uint16_t extCompatID;
  uint16_t structSize;
  uint32_t regionType;
  size_t regionDescCount;
  size_t regionDescElementSize;
  const void* regionDescElements;
};
inline void mark_initialized(nvtxDomainHandle_t, void*, uint8_t, const mark_initialized_batch* desc) {
  if (desc == nullptr || desc->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS) return;
  for (std::size_t i = 0; i < desc->regionDescCount; ++i) {
    const auto& r = element<nvtxMemVirtualRangeDesc_t>(desc->regionDescElements, desc->regionDescElementSize, i);
    shadow_written(r.ptr, r.size);
  }
}

/// Fills the memory extension's function slots (by the extension's callback ids).
inline int fill_slots(nvtxExtModuleInfo_t* info) {
  if (info == nullptr || info->moduleId != NVTX_EXT_MODULEID_MEM || info->segmentsCount == 0) return 1;
  nvtxExtModuleSegment_t& s = info->segments[0];
  const auto put = [&](std::size_t id, auto fn) {
    if (id < s.slotCount) s.functionSlots[id] = reinterpret_cast<intptr_t>(fn);
  };
  put(NVTX3EXT_CBID_nvtxMemHeapRegister, &heap_register);
  put(NVTX3EXT_CBID_nvtxMemHeapUnregister, &heap_unregister);
  put(NVTX3EXT_CBID_nvtxMemHeapReset, &heap_reset);
  put(NVTX3EXT_CBID_nvtxMemRegionsRegister, &regions_register);
  put(NVTX3EXT_CBID_nvtxMemRegionsResize, &regions_resize);
  put(NVTX3EXT_CBID_nvtxMemRegionsUnregister, &regions_unregister);
  put(NVTX3EXT_CBID_nvtxMemRegionsName, &regions_name);
  put(NVTX3EXT_CBID_nvtxMemPermissionsAssign, &permissions_assign);
  put(NVTX3EXT_CBID_nvtxMemPermissionsCreate, &permissions_create);
  put(NVTX3EXT_CBID_nvtxMemPermissionsDestroy, &permissions_destroy);
  put(NVTX3EXT_CBID_nvtxMemPermissionsReset, &permissions_reset);
  put(NVTX3EXT_CBID_nvtxMemPermissionsBind, &permissions_bind);
  put(NVTX3EXT_CBID_nvtxMemPermissionsUnbind, &permissions_unbind);
  put(NVTX3EXT_CBID_nvtxMemCudaGetProcessWidePermissions, &process_wide);
  put(NVTX3EXT_CBID_nvtxMemCudaGetDeviceWidePermissions, &device_wide);
  put(NVTX3EXT_CBID_nvtxMemCudaSetPeerAccess, &set_peer_access);
  put(NVTX3EXT_CBID_nvtxMemCudaMarkInitialized, &mark_initialized);
  return 1;
}

} // namespace nvtx_calls
} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

/// NVTX's entry for a tool already in the process (looked up with dlsym by each extension).
extern "C" __attribute__((weak, visibility("default"))) int InitializeInjectionNvtxExtensionPreinject(
    nvtxExtModuleInfo_t* info) {
  return ::cuguard::detail::emulated_runtime::nvtx_calls::fill_slots(info);
}
