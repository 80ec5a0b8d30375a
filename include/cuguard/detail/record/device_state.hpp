// SPDX-License-Identifier: Apache-2.0
// What device code reads to report and to check lifetimes: the report channel and the lifetime
// table of the device it runs on, in a symbol that exists only where device code uses it.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/state_symbols.hpp>

#include <cstdint>

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

#if CUGUARD_IMPL_EMULATION
/// Emulation: one state, in host memory.
inline device_state emulated_device_state;
/// An OS thread that runs blocks of a grid next to others (detail/emulation/block_pool.hpp): its state,
/// with a report channel of its own (null: emulated_device_state).
inline thread_local const device_state* emulated_worker_state = nullptr;
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

#if defined(__CUDACC__) && CUGUARD_IMPL_CHECKS
namespace {
// One per translation unit: nvcc builds without relocatable device code give each translation
// unit a module of its own. Each registers itself (below, in detail/record/state_symbols.hpp's list),
// so that the runtime writes the state into every module, whichever translation unit launches
// its kernels. (A variable template: nvcc checked builds only; no other build defines it.)
// Constant memory: device code cannot write it, so a kernel loads it once.
template <class = void>
__constant__ ::cuguard::detail::device_state cuguard_impl_device_state;
} // namespace
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
#if CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS
template <class T>
struct always_void {
  using type = void;
};

/// The state (its one symbol, cuguard_impl_device_state<void>, whatever `Dependent` is). A
/// template that callers instantiate with a type of their own, as the symbol is: a translation
/// unit whose device code never reports and never checks a lifetime instantiates neither.
template <class Dependent>
__device__ inline const device_state& current_device_state() {
  return cuguard_impl_device_state<typename always_void<Dependent>::type>;
}
#elif CUGUARD_IMPL_EMULATION
template <class Dependent>
inline const device_state& current_device_state() {
  const device_state* worker = emulated_worker_state;
  return worker != nullptr ? *worker : emulated_device_state;
}
#endif
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// The registration of this translation unit's symbol in the list the runtime reads.
#if defined(__CUDACC__) && CUGUARD_IMPL_CHECKS
namespace {
struct cuguard_impl_state_registration {
  ::cuguard::detail::state_symbol node;
  cuguard_impl_state_registration() {
    auto& r = ::cuguard::detail::registered_state_symbols();
    ::cuguard::detail::host_lock lock(r.mutex);
    node.address = &cuguard_impl_device_state<>;
    node.next = r.first;
    r.first = &node;
    ++r.version;
  }
  // Unlinked when its module goes (a shared library unloaded with dlclose), so that the list
  // never leads into unmapped memory.
  ~cuguard_impl_state_registration() {
    auto& r = ::cuguard::detail::registered_state_symbols();
    ::cuguard::detail::host_lock lock(r.mutex);
    for (::cuguard::detail::state_symbol** p = &r.first; *p != nullptr; p = &(*p)->next) {
      if (*p == &node) {
        *p = node.next;
        break;
      }
    }
  }
  cuguard_impl_state_registration(const cuguard_impl_state_registration&) = delete;
  cuguard_impl_state_registration& operator=(const cuguard_impl_state_registration&) = delete;
};
cuguard_impl_state_registration cuguard_impl_state_registration_instance;
} // namespace
#endif
