// SPDX-License-Identifier: Apache-2.0
// cuguard::check(): waits for the device, then reports what device code recorded, or a CUDA error.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#if CUGUARD_IMPL_CHECKS // unchecked kernels record nothing to read
#  include <cuguard/detail/runtime/device_record.hpp>
#endif

#include <cuguard/violation_error.hpp>
#if CUGUARD_IMPL_EMULATION
#  include <cuguard/detail/runtime/error_exit.hpp>
#endif

#include <cstdint>
#include <cstdio>
#include <exception>

CUGUARD_IMPL_BEGIN_NAMESPACE

namespace detail {
/// report_recorded(), with the runtime's mutex held.
inline bool report_recorded_locked() {
#if CUGUARD_IMPL_CHECKS
  const device_runtime* d = ready_device_locked();
  return d != nullptr && __atomic_load_n(&d->host_channel->started, __ATOMIC_ACQUIRE) != 0u;
#else
  return false;
#endif
}
/// True if device code of the current device recorded a violation that nothing has read: one
/// read of the report channel's flag (mapped pinned memory). False with checks off.
inline bool report_recorded() {
  host_lock lock(runtime().mutex);
  return report_recorded_locked();
}
/// True if check() has a report to throw: one recorded, or one printed that no check() threw
/// (one locked read: cuguard::torch polls at every launch).
inline bool report_waiting() {
  host_lock lock(runtime().mutex);
  return runtime().printed_count != 0 || report_recorded_locked();
}

/// check() but for the reports printed already: waits for `stream`, then throws what device code
/// recorded, or a CUDA error.
inline void check_device(cudaStream_t stream) {
  runtime_state& rt = runtime();
  backend::status err = backend::synchronize(stream);
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
} // namespace detail

/// Waits for the work of `stream` (all work of the device when null), then reports: a violation
/// recorded by device code throws violation_error (and the channel is cleared, so the program
/// can go on); a CUDA error throws cuda_error naming the launch it follows. A trapped kernel
/// still yields its recorded report. A report printed already at a synchronizing call of the
/// emulated runtime API (and not thrown since) is thrown first.
inline void check(cudaStream_t stream = nullptr) {
  std::exception_ptr printed;
  {
    detail::host_lock lock(detail::runtime().mutex);
    printed = detail::runtime().take_printed();
  }
  if (printed) std::rethrow_exception(printed);
  detail::check_device(stream);
}

/// Reports a violation that device code of the current device has already recorded, without
/// waiting for the device when there is none: one read of the report channel's flag (mapped
/// pinned memory) and, only if it is set, what check(stream) does (wait, throw
/// violation_error). Cheap enough for every entry point of a library: cuguard::torch::launch
/// calls it before each launch, so that an earlier kernel's violation is raised at the latest
/// by the next launch. CUDA errors are left to check(). Nothing to do with checks off.
inline void poll(cudaStream_t stream = nullptr) {
  if (detail::report_waiting()) check(stream);
}

namespace detail {
#if CUGUARD_IMPL_CHECKS
/// What device code recorded and nothing read, thrown as check() throws it (a report printed
/// already, by the emulated runtime's synchronizing calls, is left to check()); nothing, and no
/// wait, when nothing was recorded.
inline void raise_recorded_report() {
  if (report_recorded()) check_device(nullptr);
}
/// What report_hooks does where a launch's arguments are made: raise_recorded_report(), whose
/// violation_error a framework's adapter may throw as the error its users see (cuguard::torch:
/// IndexError and RuntimeError).
inline void (*raise_at_arguments)() = [] { raise_recorded_report(); };

/// check()'s share of host_hooks: a T* converted to a cuguard::ptr in host code (an argument of
/// a <<<>>> launch, which nothing of cuguard's sees, or of cuguard::launch), or a view of a tensor
/// made by cuguard::torch, first raises what device code recorded and nothing read
/// (raise_at_arguments), so that a kernel's violation is raised at the latest by the next launch
/// whose arguments are made so.
class report_hooks final : public host_hooks {
 public:
  void unread_report() const override {
    raise_at_arguments();
    host_hooks::unread_report();
  }
};
/// Installed at start-up by every program that includes check().
inline const bool report_hooks_installed = install_static_hooks<report_hooks>();
#endif

/// Prints a report that device code recorded and nothing has read, to stderr, as
/// compute-sanitizer prints what it finds (`when`: a line saying where it was found), so that a
/// program that never calls check() loses none; the next check() still throws it. CUDA errors
/// are left to the caller's own calls.
inline void print_unread_report(const char* when) {
  if (!report_recorded()) return;
  try {
    check_device(nullptr);
  } catch (const violation_error& e) {
    std::fprintf(stderr, "%s\n  (%s)\n", e.what(), when);
#if CUGUARD_IMPL_EMULATION
    emulated_runtime::count_error();
#endif
    host_lock lock(runtime().mutex);
    runtime().keep_printed(std::current_exception());
  } catch (const cuda_error&) {
  }
}

/// Under emulation, a report nothing read by the end of the program is printed then (from the
/// first launch on; on a GPU the CUDA runtime is gone by then).
inline void print_unread_report_at_exit() {
#if CUGUARD_IMPL_EMULATION && CUGUARD_IMPL_CHECKS
  struct at_exit {
    ~at_exit() { print_unread_report("found at exit: no check() or synchronizing call read it"); }
  };
  static at_exit printer;
  (void)printer;
#endif
}
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
