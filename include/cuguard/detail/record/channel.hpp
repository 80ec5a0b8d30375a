// SPDX-License-Identifier: Apache-2.0
// The report channel: where device code records the first violation of a launch and counts the rest.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/record/fields.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Where the record goes: memory the host can read even after a kernel trapped (mapped pinned
/// host memory; plain host memory under emulation). Written with plain stores by one thread.
struct channel {
  unsigned int started; ///< 1: a thread began writing the record
  unsigned int ready;   ///< 1: the record is written (finish() completes it on the host)
  record rec;           ///< the violation, and what finish() completes it from
};

/// The atomics of the channel, in device memory: atomics on mapped host memory are not atomic
/// on every link. The first violating thread wins `claim`; every violation increments `count`
/// (one per thread where the thread stops at it).
struct channel_counters {
  unsigned long long count; ///< violations since the host last cleared the channel
  unsigned int claim;       ///< 0: free; 1: a thread owns the record
  unsigned int ready;       ///< 1: the record is complete (what threads wait on before trapping)
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
