// SPDX-License-Identifier: Apache-2.0
// The kernels a translated file defines, by address, under emulation: cudaLaunchKernel and
// cudaLaunchCooperativeKernel take a kernel as `const void*` and its arguments as `void**`, so the
// launch of each kernel (its parameter types) is registered where the kernel is defined
// (python/cuguard/emulate.py writes the registration; detail/runtime/chevron.hpp makes it).
#pragma once

#include <cuguard/config.hpp>

#include <cuda/std/source_location>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Launches the registered kernel `kernel` with the arguments `args` points at (`cooperative`:
/// every block at once), as the runtime call made at `site` asks.
using registered_launch = cudaError_t (*)(const void* kernel, bool cooperative, const cuda::std::source_location& site,
                                          dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                                          cudaStream_t stream);

struct kernel_registry {
  std::mutex mutex;
  std::unordered_map<const void*, registered_launch> launches;

  static kernel_registry& get() {
    static kernel_registry* const r = new kernel_registry; // never destroyed: registered at static initialization
    return *r;
  }
  void add(const void* kernel, registered_launch launch) {
    std::lock_guard<std::mutex> lock(mutex);
    launches.emplace(kernel, launch);
  }
  /// The launch of `kernel` (null: a kernel no translated file defines).
  registered_launch find(const void* kernel) {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = launches.find(kernel);
    return it == launches.end() ? nullptr : it->second;
  }
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
