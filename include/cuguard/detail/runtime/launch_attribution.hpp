// SPDX-License-Identifier: Apache-2.0
// Which launch a device report names: the device's last launch number or the one the view
// carried, and what the report says when the evidence leaves a doubt.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// What decides which launch a device record names (see choose_launch).
struct launch_evidence {
  std::uint64_t last = 0;    ///< the device's last launch number when the violation was recorded
  std::uint64_t carried = 0; ///< the number the view carried (0: none)
  const launch_entry* last_entry = nullptr;    ///< the runtime's entry of `last`, if still known
  const launch_entry* carried_entry = nullptr; ///< the same for `carried`
  std::size_t streams = 0;   ///< streams launched on since the device was last checked as a whole
  bool may_overlap = false;  ///< kernels may have run at once (several streams, a GPU, no launch blocking)
  /// The view was made in host code and carries no number: no cuguard::launch passed it, in a
  /// build where a kernel can be launched without cuguard (`<<<>>>` under nvcc).
  bool host_view = false;
};

inline bool same_dims(const dim3& a, const unsigned (&b)[3]) {
  return a.x == b[0] && a.y == b[1] && a.z == b[2];
}

/// Which launch a device record names, and what the report must say when that is not certain.
/// The device's last launch number is the running launch unless kernels overlapped. The view's
/// number is that of the launch that passed it as an argument, which is the running launch
/// unless an earlier launch kept the view in memory. The view's number is taken only where the
/// last number may be wrong and the view's fits: its launch is still known, ran with the grid
/// and block the device recorded, and on another stream than the last launch (on the same
/// stream it had finished before the last one started; a last launch no longer known counts
/// as another stream's). Distinct streams count as able to overlap, the legacy default stream
/// too (the cautious reading).
inline text choose_launch(violation& v, const launch_evidence& e) {
  text overlap = "launches on ";
  overlap << e.streams << (e.streams >= 4 ? " or more" : "") << " streams since the device was last checked as a whole";
  const char* maybe_other = "the launch named is the last one started before the violation, which may be "
                            "another stream's";
  v.launch.id = e.last;
  text note;
  if (e.carried == 0 && e.host_view) {
    // Kept in memory by the host and read by a kernel of cuguard::launch, or passed by a launch
    // cuguard did not make: the device's last launch only where its grid and block fit.
    const bool last_fits = e.last_entry != nullptr && same_dims(e.last_entry->grid, v.launch.grid) &&
                           same_dims(e.last_entry->block, v.launch.block);
    if (last_fits) {
      note << "\n  (the view was made in host code and no cuguard::launch passed it: the launch named is the "
           << "device's last, whose grid and block fit; a launch not made through cuguard::launch, such as "
           << "<<<>>>, may have run the kernel instead)";
      return note;
    }
    v.launch.id = 0; // reported as a launch not made through cuguard::launch
    note << "\n  (the view was made in host code and passed by a launch not made through cuguard::launch, such "
         << "as <<<>>>: launch the kernel with cuguard::launch, or cuguard::torch::launch, for reports to name "
         << "it and the line that launched it)";
    return note;
  }
  if (e.carried == 0 || e.carried == e.last) {
    if (e.carried == 0 && e.may_overlap)
      note << "\n  (" << overlap << ", and the view carries no launch number (made in device code, or not a kernel "
           << "argument itself): " << maybe_other << ")";
    return note;
  }
  const bool fits = e.carried_entry != nullptr && same_dims(e.carried_entry->grid, v.launch.grid) &&
                    same_dims(e.carried_entry->block, v.launch.block);
  const bool same_stream =
      e.last_entry != nullptr && e.carried_entry != nullptr && e.last_entry->stream == e.carried_entry->stream;
  if (fits && (e.last == 0 || (e.may_overlap && !same_stream))) {
    v.launch.id = e.carried;
    if (e.last != 0)
      note << "\n  (" << overlap << ": named after the launch that passed the view; the device's launch counter "
           << "showed #" << e.last << ", another stream's launch, unless an earlier launch kept the view in memory)";
    return note;
  }
  note << "\n  (the view was passed to launch #" << e.carried << " and kept in memory";
  if (e.may_overlap) note << "; " << overlap << ": " << maybe_other;
  note << ")";
  return note;
}

/// choose_launch with the evidence of `d` (call with the runtime's mutex held).
inline text resolve_launch(violation& v, const pending& p, const device_runtime& d) {
  launch_evidence e;
  e.last = v.launch.id;
  e.carried = p.view_launch;
  e.last_entry = known_launch(e.last);
  e.carried_entry = known_launch(e.carried);
  e.streams = d.stream_count;
  // Emulated launches run one at a time, and CUGUARD_LAUNCH_BLOCKING checks each before the next.
  e.may_overlap = backend::kernels_may_overlap && e.streams > 1 && !launch_blocking();
  // Emulated launches are all cuguard's (<<<>>> included: cuguard_emulate rewrites it), and
  // emulated kernels run in host code, where every view looks made there.
  e.host_view = !CUGUARD_IMPL_EMULATION && p.label_on_host;
  return choose_launch(v, e);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
