// SPDX-License-Identifier: Apache-2.0
// The one interface through which a view made in host code reaches the host runtime: which
// tracked allocation it lies in, and what is known of that allocation for a report.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/lifetime_token.hpp>
#include <cuguard/violation.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The allocation a host pointer lies in, as the host runtime knows it.
struct allocation_span {
  bool tracked = false;                       ///< false: no tracked allocation holds the pointer
  lifetime_token token{};                     ///< the allocation's token (tracked only)
  std::uintptr_t begin = 0;                   ///< its first byte (tracked only)
  std::size_t bytes = 0;                      ///< its size (tracked only)
  memory_space space = memory_space::unknown; ///< also for untracked memory, where the backend can tell
  int device = -1;
};

/// What views ask of the host runtime. The lifetime registry (lifetime.hpp) and the runtime
/// (which adds the CUDA backend's answer for untracked memory) implement it and install
/// themselves; a program with neither has none, and its views are untracked, of unknown space.
class host_hooks {
 public:
  /// The allocation holding `p`.
  virtual allocation_span locate(const void* p) const = 0;
  /// Fills the allocation fields of `v` (label, allocation and release sites, bytes) for the
  /// allocation of `t`: live, or released and not reused since. False if it is not known.
  virtual bool describe(const lifetime_token& t, violation& v) const = 0;

 protected:
  ~host_hooks() = default;
};

/// The installed implementation, null until one installs itself.
inline std::atomic<const host_hooks*> installed_host_hooks{nullptr};

inline allocation_span locate_allocation(const void* p) {
  const host_hooks* h = installed_host_hooks.load(std::memory_order_acquire);
  return h != nullptr ? h->locate(p) : allocation_span{};
}

inline bool describe_allocation(const lifetime_token& t, violation& v) {
  const host_hooks* h = installed_host_hooks.load(std::memory_order_acquire);
  return h != nullptr && h->describe(t, v);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
