// SPDX-License-Identifier: Apache-2.0
// The list of every translation unit's device state symbol (nvcc checked builds register each
// at start-up), so that the runtime can write the state into each of them.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/runtime/host_mutex.hpp>


CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// One translation unit's copy of the device state symbol (its host address).
struct state_symbol {
  const void* address = nullptr;
  state_symbol* next = nullptr;
};

/// Every translation unit's copy, as a list of the registrations' own nodes (no allocation);
/// the runtime writes the state into each of them for each device it uses.
struct state_symbols {
  host_mutex mutex;
  state_symbol* first = nullptr;
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
