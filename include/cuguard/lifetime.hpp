// SPDX-License-Identifier: Apache-2.0
// Lifetimes of memory cuguard did not allocate: track(pointer, bytes, label) / release(pointer).
// The registry behind them (and behind the answers views get through detail::host_hooks) is
// detail/runtime/lifetime_registry.hpp.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/runtime/lifetime_registry.hpp>
#include <cuguard/detail/record/facts.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <cstddef>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Registers `bytes` bytes at `p` under `label`, so that views made over that memory carry a
/// lifetime token, are checked to lie inside it, and report use_after_free once it is
/// released. Returns the token (an untracked token when checks are off or the table is full).
inline lifetime_token track(const void* p, std::size_t bytes, const char* label,
                            memory_space space = memory_space::unknown, int device = -1,
                            cuda::std::source_location where = cuda::std::source_location::current()) {
#if CUGUARD_IMPL_CHECKS
  return detail::registry().track(p, bytes, label, space, device, where);
#else
  (void)p, (void)bytes, (void)label, (void)space, (void)device, (void)where;
  return {};
#endif
}

/// Marks the allocation that starts at `p` as released: every access through a view of it is
/// then a use_after_free violation naming where it was tracked and released. Releasing memory
/// that is not tracked (or twice) is a violation too.
inline void release(const void* p, cuda::std::source_location where = cuda::std::source_location::current()) {
#if CUGUARD_IMPL_CHECKS
  detail::registry().release(p, where);
#else
  (void)p, (void)where;
#endif
}

CUGUARD_IMPL_END_NAMESPACE
