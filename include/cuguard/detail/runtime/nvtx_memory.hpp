// SPDX-License-Identifier: Apache-2.0
// NVTX's memory annotations (nvtx3/nvToolsExtMem.h) under emulation, as compute-sanitizer honours
// them: cuguard is the program's NVTX tool for the memory extension (an injection found through
// the process's symbols: InitializeInjectionNvtxExtensionPreinject, exported by cuguard_emulate's
// -rdynamic). A memory pool (nvtxMemHeapRegister, a sub-allocator) is out of bounds but for the
// regions registered in it (nvtxMemRegionsRegister, Resize, Unregister, nvtxMemHeapReset); the
// permissions assigned to a region or allocation (nvtxMemPermissionsAssign: read, write, atomic)
// are checked at each access of a kernel; a name (nvtxMemRegionsName) labels the allocation in
// leakcheck's and initcheck's lines; nvtxMemCudaMarkInitialized counts as a write for initcheck.
// The accesses come from the access callbacks of a cuguard_emulate(... SANITIZE) build
// (detail/runtime/access_hooks.hpp), which call nvtx_access().
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/init_check.hpp>
#include <cuguard/violation.hpp>

#include <nvtx3/nvToolsExtMem.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// What NVTX's memory annotations said so far.
struct nvtx_memory {
  struct pool {
    std::uintptr_t begin;
    std::size_t bytes;
    std::map<std::uintptr_t, std::size_t> regions; ///< begin, bytes
  };
  struct permission {
    std::size_t bytes;
    std::uint32_t flags; ///< NVTX_MEM_PERMISSIONS_REGION_FLAGS_*
  };
  struct permissions {
    bool bound;                                          ///< applies now (the process-wide ones always)
    std::map<std::uintptr_t, permission> assigned;       ///< by the region's first byte
  };
  std::mutex mutex;
  std::list<pool> pools;             ///< a list: a handle is an entry's address
  std::list<permissions> objects{1}; ///< the first: the process-wide permissions
  std::set<std::string> names;       ///< every name given, kept for the process
  nvtx_memory() { objects.front().bound = true; }
};
/// A pool or a permission exists (plain data, read by a sanitizer's access hook with no call).
inline bool nvtx_active = false;
inline nvtx_memory& nvtx() {
  static nvtx_memory* const m = new nvtx_memory; // never destroyed: kernels may run late
  return *m;
}

/// The bytes of the region or allocation that starts at `p`: a pool's region, else a listed
/// allocation (0: neither).
inline std::size_t region_bytes(const nvtx_memory& m, std::uintptr_t p) {
  for (const nvtx_memory::pool& pl : m.pools) {
    auto it = pl.regions.find(p);
    if (it != pl.regions.end()) return it->second;
  }
  std::uintptr_t begin = 0;
  backend::emulated_block block{};
  return backend::find_block(reinterpret_cast<const void*>(p), begin, block) && begin == p ? block.bytes : 0;
}

/// Records an access the annotations forbid (`reason`: 0 outside a pool's regions, 1 a write,
/// 2 a read, 3 an atomic without the permission; `flags`: the permission's, or for a pool 1 for
/// a write), by the running thread from the code at `pc`.
inline void record_annotation_violation(std::uintptr_t a, std::size_t n, int reason, std::uintptr_t begin,
                                        std::size_t bytes, std::uintptr_t near, std::size_t near_bytes,
                                        std::uint32_t flags, const void* pc) {
  backend::record_thread_finding(*platform::running, pc, [&](violation& v) {
    v.kind = violation_kind::annotation_violation;
    v.op = operation::access;
    v.space = memory_space::device;
    v.address = static_cast<std::int64_t>(a);
    v.bytes = static_cast<std::int64_t>(n);
    v.value = reason;
    v.value_end = static_cast<std::int64_t>(begin);
    v.limit = static_cast<std::int64_t>(bytes);
    v.expected[0] = static_cast<std::int64_t>(near);
    v.expected[1] = static_cast<std::int64_t>(near_bytes);
    v.width = flags;
  }, current_device_state<void>());
}

/// A load or store (`atomic`: of an atomic operation) of `n` bytes at `a` by the running kernel
/// thread: checked against the pools and the permissions that apply.
inline void nvtx_access(std::uintptr_t a, std::size_t n, bool write, bool atomic, const void* pc) {
  if (!__atomic_load_n(&nvtx_active, __ATOMIC_ACQUIRE)) return;
  nvtx_memory& m = nvtx();
  const std::lock_guard<std::mutex> lock(m.mutex);
  for (const nvtx_memory::pool& p : m.pools) {
    if (a - p.begin >= p.bytes) continue;
    auto it = p.regions.upper_bound(a);
    std::uintptr_t near = 0;
    std::size_t near_bytes = 0;
    if (it != p.regions.begin()) {
      --it;
      if (a - it->first < it->second && n <= it->second - (a - it->first)) break; // inside a region
      near = it->first;
      near_bytes = it->second;
    }
    record_annotation_violation(a, n, 0, p.begin, p.bytes, near, near_bytes, write ? 1 : 0, pc);
    return;
  }
  const std::uint32_t needed = atomic ? NVTX_MEM_PERMISSIONS_REGION_FLAGS_ATOMIC
                               : write ? NVTX_MEM_PERMISSIONS_REGION_FLAGS_WRITE
                                       : NVTX_MEM_PERMISSIONS_REGION_FLAGS_READ;
  for (const nvtx_memory::permissions& o : m.objects) {
    if (!o.bound) continue;
    auto it = o.assigned.upper_bound(a);
    if (it == o.assigned.begin()) continue;
    --it;
    if (a - it->first >= it->second.bytes || (it->second.flags & needed) != 0) continue;
    record_annotation_violation(a, n, atomic ? 3 : write ? 1 : 2, it->first, it->second.bytes, 0, 0,
                                it->second.flags, pc);
    return;
  }
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
