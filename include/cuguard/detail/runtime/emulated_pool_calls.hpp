// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime's memory pools under emulation (<cuguard/emulated_runtime.hpp> includes this):
// the device's default pool and pools made by cudaMemPoolCreate, the pool cudaMallocAsync takes
// from (cudaDeviceSetMemPool), cudaMallocFromPoolAsync, and each pool's attributes. A pool keeps
// nothing back: each allocation is the emulation's own (checked as cudaMalloc's are) and a free
// returns it, so the memory a pool reserves is the memory it has in use (ReservedMem* as
// UsedMem*), cudaMemPoolTrimTo has nothing to release, and the release threshold and reuse
// policies are kept as set, changing nothing.
#pragma once

#include <cuguard/detail/runtime/emulated_calls.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <iterator>
#include <mutex>
#include <set>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// A memory pool of the emulated device (a cudaMemPool_t points to one).
struct memory_pool {
  std::uint64_t release_threshold = 0;
  int reuse[3] = {1, 1, 1}; ///< FollowEventDependencies, AllowOpportunistic, AllowInternalDependencies
  std::uint64_t used = 0, used_high = 0, reserved_high = 0;
};

/// The pools, and the allocations made from them.
struct memory_pools {
  std::mutex mutex;
  memory_pool default_pool;
  memory_pool* current = &default_pool; ///< the pool cudaMallocAsync takes from
  std::set<const memory_pool*> created; ///< by cudaMemPoolCreate, not destroyed
  std::map<const void*, std::pair<memory_pool*, std::size_t>> allocations;
};
inline memory_pools& pools() {
  static memory_pools* p = new memory_pools; // (never destroyed: frees at exit still find it)
  return *p;
}

inline cudaMemPool_t handle_of(memory_pool* p) noexcept { return reinterpret_cast<cudaMemPool_t>(p); }
/// The pool `h` names: the default one or a live created one (null: none; the caller holds the mutex).
inline memory_pool* pool_of(cudaMemPool_t h) {
  memory_pools& all = pools();
  auto* p = reinterpret_cast<memory_pool*>(h);
  return p == &all.default_pool || all.created.count(p) != 0 ? p : nullptr;
}

/// Allocates `bytes` from pool `h` (null: the current pool) into `*ptr`, as `call`.
inline cudaError_t allocate_from_pool(void** ptr, std::size_t bytes, cudaMemPool_t h, cudaStream_t stream,
                                      const char* call) {
  if (!valid_stream(stream)) return result(cudaErrorInvalidResourceHandle);
  memory_pools& all = pools();
  memory_pool* pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(all.mutex);
    pool = h == nullptr ? all.current : pool_of(h);
  }
  if (pool == nullptr) return result(cudaErrorInvalidValue);
  const cudaError_t e = allocate(ptr, bytes, memory_space::device, call);
  if (e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(all.mutex);
  all.allocations[*ptr] = {pool, bytes};
  pool->used += bytes;
  if (pool->used > pool->used_high) pool->used_high = pool->used;
  if (pool->used > pool->reserved_high) pool->reserved_high = pool->used;
  return cudaSuccess;
}

/// `p` was freed: where a pool's, the pool no longer has it in use.
inline void returned_to_pool(const void* p) {
  memory_pools& all = pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  const auto it = all.allocations.find(p);
  if (it == all.allocations.end()) return;
  it->second.first->used -= it->second.second;
  all.allocations.erase(it);
}

/// Pool attribute `attr` of `pool` to `*value` (`set`: from it); false: no such attribute, or
/// not one that may be set so.
inline bool pool_attribute(memory_pool& pool, cudaMemPoolAttr attr, void* value, bool set) {
  auto* const number = static_cast<std::uint64_t*>(value);
  auto* const flag = static_cast<int*>(value);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      if (set) pool.reuse[attr - cudaMemPoolReuseFollowEventDependencies] = *flag != 0;
      else *flag = pool.reuse[attr - cudaMemPoolReuseFollowEventDependencies];
      return true;
    case cudaMemPoolAttrReleaseThreshold:
      if (set) pool.release_threshold = *number;
      else *number = pool.release_threshold;
      return true;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent:
      if (!set) *number = pool.used;
      return !set;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: { // (set: only to 0, which resets it to what is in use)
      std::uint64_t& high = attr == cudaMemPoolAttrUsedMemHigh ? pool.used_high : pool.reserved_high;
      if (set && *number != 0) return false;
      if (set) high = pool.used;
      else *number = high;
      return true;
    }
    default:
      return false;
  }
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

#define CUGUARD_IMPL_EPC ::cuguard::detail::emulated_runtime
#define CUGUARD_IMPL_EPC_RETURN(e) return CUGUARD_IMPL_EPC::returned(__func__, e)
#define CUGUARD_IMPL_EPC_FAIL(e) CUGUARD_IMPL_EPC_RETURN(CUGUARD_IMPL_EPC::result(e))

// (hidden: see emulated_runtime.hpp)
#pragma GCC visibility push(hidden)
extern "C" {

inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (memPool == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  if (device != 0) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidDevice);
  *memPool = CUGUARD_IMPL_EPC::handle_of(&CUGUARD_IMPL_EPC::pools().default_pool);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  if (memPool == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  if (device != 0) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidDevice);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  *memPool = CUGUARD_IMPL_EPC::handle_of(CUGUARD_IMPL_EPC::pools().current);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (device != 0) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidDevice);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  CUGUARD_IMPL_EPC::memory_pool* const pool = CUGUARD_IMPL_EPC::pool_of(memPool);
  if (pool == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EPC::pools().current = pool;
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
/// A pool of the emulated device's memory: pinned allocations located on device 0.
inline cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const cudaMemPoolProps* poolProps) {
  if (memPool == nullptr || poolProps == nullptr || poolProps->allocType != cudaMemAllocationTypePinned ||
      poolProps->location.type != cudaMemLocationTypeDevice)
    CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  if (poolProps->location.id != 0) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidDevice);
  auto* pool = new CUGUARD_IMPL_EPC::memory_pool;
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  CUGUARD_IMPL_EPC::pools().created.insert(pool);
  *memPool = CUGUARD_IMPL_EPC::handle_of(pool);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
/// Its allocations stay valid until freed (as CUDA's do); the device's current pool becomes the
/// default one where it was this one.
inline cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  CUGUARD_IMPL_EPC::memory_pools& all = CUGUARD_IMPL_EPC::pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  CUGUARD_IMPL_EPC::memory_pool* const pool = CUGUARD_IMPL_EPC::pool_of(memPool);
  if (pool == nullptr || pool == &all.default_pool) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  if (all.current == pool) all.current = &all.default_pool;
  all.created.erase(pool);
  for (auto a = all.allocations.begin(); a != all.allocations.end();) // (counted in no pool now)
    a = a->second.first == pool ? all.allocations.erase(a) : std::next(a);
  delete pool;
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  if (value == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  CUGUARD_IMPL_EPC::memory_pool* const pool = CUGUARD_IMPL_EPC::pool_of(memPool);
  if (pool == nullptr || !CUGUARD_IMPL_EPC::pool_attribute(*pool, attr, value, true))
    CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  if (value == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  CUGUARD_IMPL_EPC::memory_pool* const pool = CUGUARD_IMPL_EPC::pool_of(memPool);
  if (pool == nullptr || !CUGUARD_IMPL_EPC::pool_attribute(*pool, attr, value, false))
    CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  if (CUGUARD_IMPL_EPC::pool_of(memPool) == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
/// The emulated device reads and writes every pool; no other device exists.
inline cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const cudaMemAccessDesc* descList, size_t count) {
  if (descList == nullptr && count != 0) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i)
    if (descList[i].location.type != cudaMemLocationTypeDevice || descList[i].location.id != 0)
      CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidDevice);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  if (CUGUARD_IMPL_EPC::pool_of(memPool) == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t memPool, cudaMemLocation* location) {
  if (flags == nullptr || location == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  if (location->type != cudaMemLocationTypeDevice || location->id != 0) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidDevice);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EPC::pools().mutex);
  if (CUGUARD_IMPL_EPC::pool_of(memPool) == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  *flags = cudaMemAccessFlagsProtReadWrite;
  CUGUARD_IMPL_EPC_RETURN(cudaSuccess);
}
inline cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  if (memPool == nullptr) CUGUARD_IMPL_EPC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EPC_RETURN(CUGUARD_IMPL_EPC::allocate_from_pool(ptr, size, memPool, stream, "cudaMallocFromPoolAsync"));
}

} // extern "C"
#pragma GCC visibility pop

#undef CUGUARD_IMPL_EPC_FAIL
#undef CUGUARD_IMPL_EPC_RETURN
#undef CUGUARD_IMPL_EPC
