// SPDX-License-Identifier: Apache-2.0
// Runtime: the device state symbol of every translation unit that includes the runtime, so that
// the runtime can write the state into each of them.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/device_state.hpp>
#include <cuguard/detail/host_mutex.hpp>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// One translation unit's copy of the device state symbol (its host address).
struct state_symbol {
  const void* address = nullptr;
  const state_symbol* next = nullptr;
};

/// Every translation unit's copy, as a list of the registrations' own nodes (no allocation);
/// the runtime writes the state into each of them for each device it uses.
struct state_symbols {
  host_mutex mutex;
  const state_symbol* first = nullptr;
  unsigned version = 0; // bumped on every registration, so the runtime sees late ones
};
inline state_symbols& registered_state_symbols() {
  static state_symbols s;
  return s;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

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
};
cuguard_impl_state_registration cuguard_impl_state_registration_instance;
} // namespace
#endif
