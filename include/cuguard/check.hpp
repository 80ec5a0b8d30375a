// SPDX-License-Identifier: Apache-2.0
// cuguard::check(): waits for the device, then reports what device code recorded, or a CUDA error.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#if CUGUARD_IMPL_CHECKS // unchecked kernels record nothing to read
#  include <cuguard/detail/runtime/device_record.hpp>
#endif

#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Waits for the work of `stream` (all work of the device when null), then reports: a violation
/// recorded by device code throws violation_error (and the channel is cleared, so the program
/// can go on); a CUDA error throws cuda_error naming the launch it follows. A trapped kernel
/// still yields its recorded report.
inline void check(cudaStream_t stream = nullptr) {
  detail::backend::status err = detail::backend::synchronize(stream);
  detail::runtime_state& rt = detail::runtime();
  bool lost = err != 0 || detail::backend::context_lost();
#if CUGUARD_IMPL_CHECKS
  detail::device_runtime* ready = nullptr;
  {
    detail::host_lock lock(rt.mutex);
    ready = detail::ready_device_locked();
  }
  // No channel yet (no cuguard::launch on this device): nothing can have been recorded, and a
  // context lost to a trap could not make one now.
  if (ready != nullptr) {
    detail::device_record record;
    if (detail::read_device_record(*ready, record, lost, err)) detail::throw_device_record(*ready, record, lost, err);
    if (stream == nullptr) { // every stream waited for: no kernel overlaps what comes next
      detail::host_lock lock(rt.mutex);
      ready->forget_streams();
    }
  }
#endif
  if (err != 0 || lost) {
    detail::text after;
    {
      detail::host_lock lock(rt.mutex);
      const detail::device_runtime* d = detail::device_slot_locked(detail::backend::current_device());
      if (const detail::launch_entry* e = detail::known_launch(d != nullptr ? d->last_launch : 0))
        after << " after " << detail::describe_launch(*e);
    }
    if (err != 0) detail::throw_cuda(err, detail::text("check") << after);
    detail::text message = "cuguard: check";
    message << after << ": an emulated kernel trapped; the CUDA context is lost";
    throw cuda_error(0, message.c_str());
  }
}

/// Reports a violation that device code of the current device has already recorded, without
/// waiting for the device when there is none: one read of the report channel's flag (mapped
/// pinned memory) and, only if it is set, what check(stream) does (wait, throw
/// violation_error). Cheap enough for every entry point of a library: cuguard::torch::launch
/// calls it before each launch, so that an earlier kernel's violation is raised at the latest
/// by the next launch. CUDA errors are left to check(). Nothing to do with checks off.
inline void poll(cudaStream_t stream = nullptr) {
#if CUGUARD_IMPL_CHECKS
  bool recorded = false;
  {
    detail::host_lock lock(detail::runtime().mutex);
    if (const detail::device_runtime* d = detail::ready_device_locked())
      recorded = __atomic_load_n(&d->host_channel->started, __ATOMIC_ACQUIRE) != 0u;
  }
  if (recorded) check(stream);
#else
  (void)stream;
#endif
}

CUGUARD_IMPL_END_NAMESPACE
