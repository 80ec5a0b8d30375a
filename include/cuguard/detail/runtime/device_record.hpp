// SPDX-License-Identifier: Apache-2.0
// The device record reader: what device code recorded in the report channel, read, cleared for
// the next violation, completed on the host and thrown as a violation_error.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/detail/runtime/launch_attribution.hpp>
#include <cuguard/detail/record/completion.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/violation_error.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Completes a record that device code wrote: the kind of a failed access, the texts (from host
/// memory, or copied from the device while the context lives), the allocation of a stale token,
/// the kernel name and launch site.
inline void complete_record(violation& v, pending& p) {
  struct device_texts {
    text buffer;
    const char* operator()(std::uint64_t address, bool on_host) {
      if (on_host) return reinterpret_cast<const char*>(address);
      return backend::read_text(address, buffer) ? buffer.c_str() : nullptr;
    }
  } text;
  finish(v, p, text);
  describe_record_allocation(v, p.data, p.element_bytes);
  if (const launch_entry* e = known_launch(v.launch.id)) {
    copy_text(v.launch.kernel, e->kernel.c_str());
    copy_site(v.launch.site, e->where);
  }
}

/// The device record, read and cleared for the next violation.
struct device_record {
  violation v;
  pending p;
  bool complete; ///< the device finished writing it (false: the kernel stopped while writing)
};

/// Reads the record of `d` if a violation was recorded, and clears it. `lost`: the context is
/// lost (only the mapped record is left); set when waiting for the device finds it lost.
inline bool read_device_record(device_runtime& d, device_record& out, bool& lost, backend::status& err) {
  channel* ch = d.host_channel;
  // The counters live in device memory: readable while the context is alive. After a trap only
  // the mapped record is left, and the count is unknown (reported as 1).
  channel_counters counters{};
  bool have_counters = false;
  if (!lost || backend::counters_survive_a_trap) have_counters = backend::read_counters(d.counters, counters);
  const bool recorded = have_counters ? counters.claim != 0u : __atomic_load_n(&ch->started, __ATOMIC_ACQUIRE) != 0u;
  if (!recorded) return false;
  // A kernel of another stream may still be writing the record (or counting): let every kernel
  // finish before the record is read and cleared.
  if (!lost) {
    const backend::status all = backend::synchronize_device();
    if (all != 0) {
      err = all;
      lost = true;
      have_counters = false;
    } else {
      have_counters = backend::read_counters(d.counters, counters);
    }
  }
  out.complete = __atomic_load_n(&ch->ready, __ATOMIC_ACQUIRE) != 0u;
  std::memcpy(&out.v, &ch->rec.v, sizeof out.v);
  out.p = ch->rec.p;
  out.v.count = have_counters ? counters.count : 1;
  out.v.on_device = true;                                   // the channel holds device records only
  out.v.count_is_lower_bound = !CUGUARD_IMPL_DEVICE_CONTINUE; // a thread stops at its first violation
  // Cleared for the next violation, which writes only the fields that apply to it.
  std::memset(&ch->rec.v, 0, sizeof ch->rec.v);
  ch->rec.p = pending{};
  __atomic_store_n(&ch->started, 0u, __ATOMIC_RELAXED);
  __atomic_store_n(&ch->ready, 0u, __ATOMIC_RELAXED);
  if (!lost || backend::counters_survive_a_trap) backend::clear_counters(d.counters);
  return true;
}

/// Completes a device record and throws it as a violation_error, with notes on what is uncertain.
[[noreturn]] inline void throw_device_record(device_runtime& d, device_record& r, bool lost, backend::status err) {
  text note;
  if (!r.complete) note << "\n  (the record is incomplete: the kernel stopped while writing it)";
  {
    host_lock lock(runtime().mutex);
    note << resolve_launch(r.v, r.p, d);
    d.forget_streams();
  }
  complete_record(r.v, r.p);
  const pending& p = r.p;
  if (p.file != 0 || p.function != 0 || p.type != 0 || p.label != 0 || p.origin_label != 0)
    note << (lost ? "\n  (names in device memory could not be read: the CUDA context is lost)"
                 : "\n  (some names in device memory could not be read)");
  if (lost) {
    note << "\n  (the kernel trapped";
    if (err != 0) note << ": CUDA error " << backend::error_name(err);
    note << "; the CUDA context is lost and this process cannot launch again)";
  }
  throw violation_error(r.v, note.c_str());
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
