// SPDX-License-Identifier: Apache-2.0
// The list of every translation unit's device state symbol (nvcc checked builds register each
// at start-up: detail/record/device_state.hpp), so that the runtime can write the state into
// each of them.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/host_mutex.hpp>

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
