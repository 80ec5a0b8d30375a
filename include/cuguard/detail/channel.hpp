// SPDX-License-Identifier: Apache-2.0
// The report channel: where device code records the first violation of a launch and counts the rest.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/device_state.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/source_location>

#if CUGUARD_IMPL_EMULATION
#  include <cuguard/emulation.hpp>
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Where the record goes: memory the host can read even after a kernel trapped (mapped pinned
/// host memory; plain host memory under emulation). Written with plain stores by one thread.
struct channel {
  unsigned int started; ///< 1: a thread began writing the record
  unsigned int ready;   ///< 1: the record is complete
  violation record;
};

/// The atomics of the channel, in device memory: atomics on mapped host memory are not atomic
/// on every link. The first violating thread wins `claim`; every violation increments `count`.
struct channel_counters {
  unsigned long long count; ///< violations since the host last cleared the channel
  unsigned int claim;       ///< 0: free; 1: a thread owns the record
  unsigned int ready;       ///< 1: the record is complete (what threads wait on before trapping)
};

#if (CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS) || CUGUARD_IMPL_EMULATION

/// Device side of a violation: count it, let the first one write the record, then continue
/// (the caller redirects the access) or trap. `fill` writes the violation-specific fields.
template <class Fill>
CUGUARD_HOST_DEVICE void device_report(const Fill& fill, const cuda::std::source_location& where) {
  const device_state& state = current_device_state();
  channel* ch = state.report;
  channel_counters* counters = state.counters;
  if (ch == nullptr || counters == nullptr) {
    printf("cuguard: violation at %s:%u in block (%u,%u,%u) thread (%u,%u,%u), and no report channel: launch "
           "kernels with cuguard::launch (or call cuguard::check() once before launching)\n",
           where.file_name(), static_cast<unsigned>(where.line()), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
           threadIdx.y, threadIdx.z);
    __trap();
  }
  atomicAdd(&counters->count, 1ull);
  if (atomicCAS(&counters->claim, 0u, 1u) == 0u) {
    *static_cast<volatile unsigned int*>(&ch->started) = 1u;
    violation& v = ch->record;
    // Clear word by word: a `violation{}` temporary would be a 2 KiB local-memory object.
    auto* words = reinterpret_cast<unsigned long long*>(&v);
    for (unsigned i = 0; i < sizeof(violation) / sizeof(unsigned long long); ++i) words[i] = 0;
    fill(v);
    copy_tail(v.file, where.file_name());
    copy_text(v.function, where.function_name());
    v.line = static_cast<unsigned>(where.line());
    v.on_device = true;
    v.block[0] = blockIdx.x, v.block[1] = blockIdx.y, v.block[2] = blockIdx.z;
    v.thread[0] = threadIdx.x, v.thread[1] = threadIdx.y, v.thread[2] = threadIdx.z;
    v.launch.id = state.launch_id != nullptr ? *state.launch_id : 0;
    v.launch.grid[0] = gridDim.x, v.launch.grid[1] = gridDim.y, v.launch.grid[2] = gridDim.z;
    v.launch.block[0] = blockDim.x, v.launch.block[1] = blockDim.y, v.launch.block[2] = blockDim.z;
    __threadfence_system();
    *static_cast<volatile unsigned int*>(&ch->ready) = 1u;
    __threadfence_system();
    atomicExch(&counters->ready, 1u);
  }
#  if CUGUARD_IMPL_DEVICE_TRAP
  // Let the record be complete before any thread stops the grid.
  for (int spin = 0; spin < (1 << 20) && atomicAdd(&counters->ready, 0u) == 0u; ++spin) {
  }
  __threadfence_system();
  __trap();
#  endif
}

#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
