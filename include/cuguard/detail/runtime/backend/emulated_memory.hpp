// SPDX-License-Identifier: Apache-2.0
// The emulated backend's device memory (CUGUARD_EMULATION=1): host memory that the backend keeps
// a list of, allocated in the guarded arena where a sanitized build guards it.
#pragma once
// Part of detail/runtime/backend.hpp (through backend/emulated.hpp), after its `status`.

#include <cuguard/config.hpp>
#include <cuguard/detail/runtime/guarded_arena.hpp>
#include <cuguard/violation.hpp>

#include <driver_types.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace backend {

/// Memory as the backend lists it (device, managed and pinned host allocations), so that views
/// can tell "device" memory (which host code must not touch) from plain host memory, and the
/// emulated runtime API (emulated_runtime.hpp) can check the pointers it is given.
struct emulated_block {
  std::size_t bytes;
  memory_space space;
  const char* call = nullptr;     ///< the runtime API call that made it (null: a device_buffer)
  const char* function = nullptr; ///< the function that called it, where known (for leakcheck)
  bool listed = false;            ///< leakcheck listed it already (at a cudaDeviceReset)
  const char* label = nullptr;    ///< its name (NVTX's nvtxMemRegionsName), kept for the process
  bool guarded = false;           ///< in the guarded arena (guard_blocks)
};
struct emulated_memory {
  std::mutex mutex;
  std::map<std::uintptr_t, emulated_block> blocks;
};
inline emulated_memory& memory() {
  static emulated_memory* const m = new emulated_memory; // never destroyed: frees may come late
  return *m;
}

/// Allocates `bytes` (256-byte aligned, as cudaMalloc) listed as `space`: with `guard` in the
/// guarded arena where a sanitized build guards the runtime API's blocks (allocate_guarded), or
/// exactly `bytes` (at least one), so that AddressSanitizer reports an access past them.
inline status allocate_in(void** p, std::size_t bytes, memory_space space, bool guard = false) {
  *p = nullptr;
  constexpr std::size_t most = std::size_t{1} << 40; // 1 TiB: more than a device has (and ASan's limit)
  const std::size_t n = bytes == 0 ? 1 : bytes;
  *p = guard && bytes <= most ? emulated_runtime::allocate_guarded(n) : nullptr;
  const bool guarded = *p != nullptr;
  if (!guarded && (bytes > most || ::posix_memalign(p, 256, n) != 0)) {
    *p = nullptr;
    return 2; // cudaErrorMemoryAllocation
  }
  std::lock_guard<std::mutex> lock(memory().mutex);
  emulated_block& b = memory().blocks[reinterpret_cast<std::uintptr_t>(*p)] = emulated_block{bytes, space};
  b.guarded = guarded;
  return 0;
}
/// The listed allocation that `p` lies in (one past the end of a zero-byte one counts as in it).
inline bool find_block(const void* p, std::uintptr_t& begin, emulated_block& block) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(memory().mutex);
  auto it = memory().blocks.upper_bound(addr);
  if (it == memory().blocks.begin()) return false;
  --it;
  if (addr - it->first >= (it->second.bytes == 0 ? 1 : it->second.bytes)) return false;
  begin = it->first;
  block = it->second;
  return true;
}
/// Frees the allocation that starts at `p` if it is listed as `space`; false (nothing freed)
/// otherwise.
inline bool free_in(void* p, memory_space space) {
  emulated_block block{};
  {
    std::lock_guard<std::mutex> lock(memory().mutex);
    auto it = memory().blocks.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == memory().blocks.end() || it->second.space != space) return false;
    block = it->second;
    memory().blocks.erase(it);
  }
  if (block.guarded) emulated_runtime::free_guarded(p, block.bytes == 0 ? 1 : block.bytes);
  else std::free(p);
  return true;
}

inline status allocate_device(void** p, std::size_t bytes, cudaStream_t) {
  return allocate_in(p, bytes, memory_space::device);
}
inline status free_device(void* p, cudaStream_t) {
  free_in(p, memory_space::device);
  return 0;
}

} // namespace backend
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
