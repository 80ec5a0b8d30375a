// SPDX-License-Identifier: Apache-2.0
// What device code reads to report and to check lifetimes: the report channel and the lifetime
// table of the device it runs on.
#pragma once

#include <cuguard/config.hpp>

#include <cuda/std/cstdint>

#include <mutex>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

struct channel;
struct channel_counters;

/// Per device: where violations are recorded and the device copy of the lifetime generations.
struct device_state {
  channel* report = nullptr;                          ///< mapped pinned host memory
  channel_counters* counters = nullptr;               ///< device memory
  const std::uint32_t* generations = nullptr;         ///< device memory, updated in stream order
  const unsigned long long* launch_id = nullptr;      ///< device memory: the launch that runs, in stream order
  int device = -1;
};

/// Host addresses of every translation unit's copy of the device state symbol (nvcc builds
/// without relocatable device code give each translation unit its own module, so each has its
/// own copy); the runtime writes the state into each of them for each device it uses.
struct state_symbols {
  std::mutex mutex;
  std::vector<const void*> symbols;
  unsigned version = 0; // bumped on every registration, so the runtime sees late ones
};
inline state_symbols& registered_state_symbols() {
  static state_symbols s;
  return s;
}

#if CUGUARD_IMPL_EMULATION
/// Emulation: one state, in host memory.
inline device_state emulated_device_state;
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

#if defined(__CUDACC__) && CUGUARD_IMPL_CHECKS
namespace {
// One per translation unit (see state_symbols). Constant memory: device code cannot write it,
// so a kernel loads it once.
__constant__ ::cuguard::detail::device_state cuguard_impl_device_state;

struct cuguard_impl_state_registration {
  cuguard_impl_state_registration() {
    auto& r = ::cuguard::detail::registered_state_symbols();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.symbols.push_back(&cuguard_impl_device_state);
    ++r.version;
  }
};
const cuguard_impl_state_registration cuguard_impl_state_registration_instance;
} // namespace
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
#if CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS
__device__ inline const device_state& current_device_state() { return cuguard_impl_device_state; }
#elif CUGUARD_IMPL_EMULATION
inline const device_state& current_device_state() { return emulated_device_state; }
#endif
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
