// SPDX-License-Identifier: Apache-2.0
// Runtime: the device state symbol of every translation unit that includes the runtime, so that
// the runtime can write the state into each of them.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/device_state.hpp>

#include <mutex>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Host addresses of every translation unit's copy of the device state symbol; the runtime
/// writes the state into each of them for each device it uses.
struct state_symbols {
  std::mutex mutex;
  std::vector<const void*> symbols;
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
  cuguard_impl_state_registration() {
    auto& r = ::cuguard::detail::registered_state_symbols();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.symbols.push_back(&cuguard_impl_device_state<>);
    ++r.version;
  }
};
const cuguard_impl_state_registration cuguard_impl_state_registration_instance;
} // namespace
#endif
