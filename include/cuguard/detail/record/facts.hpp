// SPDX-License-Identifier: Apache-2.0
// The plain facts a record keeps of a view and of its indices: the lifetime token of its
// allocation, a label and where it lives, and where a checked_index came from. The view layer
// makes them (detail/view/lifetime_token.hpp, detail/index/index_args.hpp); the record layer
// copies them when a check fails.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Identifies one tracked allocation: a slot of the registry and the generation the slot had
/// when the view was made. Slot 0 means "not tracked". Released slots change generation, so a
/// stale token no longer matches.
struct lifetime_token {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
};

namespace detail {

/// A label and whether it lives in host memory (device code must not read it then).
struct label_ref {
  const char* text = nullptr;
  bool on_host = !CUGUARD_IMPL_DEVICE_PASS;
};

/// Where a checked_index came from (see index_origin).
struct origin_info {
  index_origin kind = index_origin::none;
  int rank = 0;
  label_ref label{};
  std::int64_t position[violation::max_rank] = {};
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
