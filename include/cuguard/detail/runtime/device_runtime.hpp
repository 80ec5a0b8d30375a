// SPDX-License-Identifier: Apache-2.0
// What the runtime keeps per device and per launch: report channels, lifetime tables, the ring of
// recent launches, and the runtime's host_hooks (the backend's word on memory, device generations).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/platform/host_mutex.hpp>
#include <cuguard/detail/view/lifetime_token.hpp>
#include <cuguard/detail/record/state_symbols.hpp>
#include <cuguard/detail/report/text.hpp>

#include <exception>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// One recent launch, kept so that a report can name the kernel and where it was launched.
struct launch_entry {
  std::uint64_t id = 0;
  text kernel;
  cuda::std::source_location where;
  dim3 grid;
  dim3 block;
  cudaStream_t stream = nullptr;
  int device = 0; ///< the current device at the launch
};

/// What the runtime keeps per device.
struct device_runtime {
  bool ready = false;
  channel* host_channel = nullptr;      ///< the channel, as the host sees it
  channel* device_channel = nullptr;    ///< the same memory, as the device sees it
  channel_counters* counters = nullptr; ///< device memory (host memory under emulation)
  std::uint32_t* generations = nullptr; ///< device copy of the lifetime generations (none under emulation)
  unsigned long long* launch_id = nullptr;
  unsigned symbols_version = ~0u;
  std::uint64_t last_launch = 0;
  /// Streams launched on since the whole device was last checked (at most four are kept): with
  /// more than one, kernels may have overlapped, and the device's last launch number may be
  /// another stream's (resolve_launch).
  cudaStream_t streams[4] = {};
  std::size_t stream_count = 0;

  void note_stream(cudaStream_t s) noexcept {
    for (std::size_t i = 0; i < stream_count; ++i)
      if (streams[i] == s) return;
    if (stream_count < 4) streams[stream_count++] = s;
  }
  void forget_streams() noexcept { stream_count = 0; }
};

/// A kernel's readable name, looked up once.
struct kernel_name_entry {
  const void* kernel;
  text name;
  const kernel_name_entry* next;
};

struct runtime_state {
  static constexpr int max_devices = 64;
  static constexpr std::size_t ring_size = 256;
  host_mutex mutex;
  device_runtime devices[max_devices];
  std::uint64_t launches = 0;
  launch_entry ring[ring_size];
  host_mutex names_mutex;
  const kernel_name_entry* names = nullptr; // never freed: names are read until the process ends
  /// Reports printed already (at a synchronizing call of the emulated runtime API) that no
  /// check() has thrown yet, oldest first: the next check() throws the oldest (where more than
  /// fit were printed, the oldest are dropped: they were printed).
  static constexpr int printed_capacity = 8;
  std::exception_ptr printed[printed_capacity];
  int printed_count = 0;

  /// The oldest printed report no check() threw (null: none), taken out.
  std::exception_ptr take_printed() noexcept {
    if (printed_count == 0) return nullptr;
    std::exception_ptr first = printed[0];
    for (int i = 1; i < printed_count; ++i) printed[i - 1] = printed[i];
    printed[--printed_count] = nullptr;
    return first;
  }
  /// Keeps a printed report for the next check().
  void keep_printed(std::exception_ptr e) noexcept {
    if (printed_count == printed_capacity) (void)take_printed();
    printed[printed_count++] = e;
  }
};

inline runtime_state& runtime() {
  static runtime_state r;
  return r;
}

/// The entry of launch `id` while the ring still holds it, else null.
inline const launch_entry* known_launch(std::uint64_t id) {
  const launch_entry& e = runtime().ring[id % runtime_state::ring_size];
  return id != 0 && e.id == id ? &e : nullptr;
}

/// The channel and tables of `device`, created on first use, and (checks on) the device state
/// written into every translation unit's symbol. Call with the runtime mutex held.
inline device_runtime& ensure_device_locked(int device) {
  runtime_state& rt = runtime();
  if (device < 0 || device >= runtime_state::max_devices) device = 0;
  device_runtime& d = rt.devices[device];
  if (!d.ready) {
    void* host = nullptr;
    void* dev = nullptr;
    if (const backend::status s = backend::allocate_mapped(&host, &dev, sizeof(channel)))
      throw_cuda(s, "cannot allocate the report channel");
    d.host_channel = static_cast<channel*>(host);
    d.device_channel = static_cast<channel*>(dev);
    if (const backend::status s = backend::allocate_counters(&d.counters))
      throw_cuda(s, "cannot allocate the report channel's counters");
#if CUGUARD_IMPL_CHECKS
    struct snapshot_t {
      std::uint32_t* values = new std::uint32_t[lifetime_slots];
      ~snapshot_t() { delete[] values; }
    } snapshot;
    for (std::uint32_t i = 0; i < lifetime_slots; ++i) snapshot.values[i] = generation_of(i);
    if (const backend::status s = backend::allocate_tables(&d.generations, &d.launch_id, snapshot.values, lifetime_slots))
      throw_cuda(s, "cannot allocate the lifetime table and launch counter");
#endif
    d.ready = true;
  }
#if CUGUARD_IMPL_CHECKS
  state_symbols& symbols = registered_state_symbols();
  host_lock lock(symbols.mutex);
  if (d.symbols_version != symbols.version) {
    backend::publish_state(device_state{d.device_channel, d.counters, d.generations, d.launch_id, device},
                           symbols.first);
    d.symbols_version = symbols.version;
  }
#endif
  return d;
}

/// What the runtime keeps for `device`, null for a number it cannot keep. Call with the runtime
/// mutex held.
inline device_runtime* device_slot_locked(int device) {
  return device >= 0 && device < runtime_state::max_devices ? &runtime().devices[device] : nullptr;
}

/// True if `device` was set up and every translation unit's symbol holds its state (what a
/// stream capture needs, since setting up cannot be captured). Call with the runtime mutex held.
inline bool device_set_up_locked(int device) {
  const device_runtime* d = device_slot_locked(device);
  if (d == nullptr || !d->ready) return false;
  state_symbols& symbols = registered_state_symbols();
  host_lock lock(symbols.mutex);
  return d->symbols_version == symbols.version;
}

/// The device runtime of the current device if it was set up, else null (nothing can have been
/// recorded on a device no cuguard::launch used).
inline device_runtime* ready_device_locked() {
  device_runtime* d = device_slot_locked(backend::current_device());
  return d != nullptr && d->ready ? d : nullptr;
}

inline const text& kernel_name(const void* kernel) {
  runtime_state& rt = runtime();
  host_lock lock(rt.names_mutex);
  for (const kernel_name_entry* n = rt.names; n != nullptr; n = n->next)
    if (n->kernel == kernel) return n->name;
  rt.names = new kernel_name_entry{kernel, backend::kernel_name(kernel), rt.names};
  return rt.names->name;
}

/// "launch #3 gather_rows<<<(32,1,1),(256,1,1)>>> at file:line" for messages.
inline text describe_launch(const launch_entry& e) {
  text s = "launch #";
  s << e.id << ' ' << e.kernel << "<<<(" << e.grid.x << ',' << e.grid.y << ',' << e.grid.z << "),(" << e.block.x
    << ',' << e.block.y << ',' << e.block.z << ")>>> at " << e.where.file_name() << ':' << e.where.line();
  return s;
}

/// CUGUARD_LAUNCH_BLOCKING=1 in the environment (detail/platform/environment.hpp).
inline bool launch_blocking() {
  const char* e = platform::environment(platform::setting::launch_blocking);
  return e != nullptr && std::strcmp(e, "1") == 0;
}

#if CUGUARD_IMPL_CHECKS
/// Sets the current device up (its report channel, every module's state) where host code makes
/// a view or a cuguard::ptr of memory that device code reads (`space`, on `device`; -1: any):
/// a kernel that takes it may be launched with <<<>>> before any cuguard::launch, and its
/// device code would find no report channel (a violation would trap, and the context be lost).
/// Setting up allocates and synchronizes, which a CUDA graph capture forbids: skipped where the
/// legacy stream's query says a capture is under way (one on a non-blocking stream, as
/// PyTorch's, is not seen, and setting up breaks it: capture after the first call). Memory of
/// another device is left to that device's launches; a failure to the next launch.
inline void set_up_for_arguments(memory_space space, int device) {
  if (space != memory_space::device && space != memory_space::managed && space != memory_space::pinned) return;
  const int current = backend::current_device();
  if (device >= 0 && device != current) return;
  runtime_state& rt = runtime();
  host_lock lock(rt.mutex);
  if (device_set_up_locked(current) || backend::capturing(nullptr, true)) return;
  try {
    (void)ensure_device_locked(current);
  } catch (const std::exception&) {
  }
}

/// The runtime's share of host_hooks: where untracked memory lives (the backend knows), the
/// device set up for the views and pointers made of device memory (set_up_for_arguments), and
/// the device copies of a released slot's generation, updated in the order of the release's stream.
class runtime_hooks final : public host_hooks {
 public:
  allocation_span locate(const void* p, std::size_t bytes) const override {
    allocation_span found = host_hooks::locate(p, bytes);
    if (!found.tracked) backend::memory_space_of(p, found.space, found.device);
    return found;
  }
  void argument_made(const allocation_span& found) const override {
    set_up_for_arguments(found.space, found.device);
    host_hooks::argument_made(found);
  }
  void released(std::uint32_t slot, std::uint32_t generation, void* stream) const override {
    {
      runtime_state& rt = runtime();
      host_lock lock(rt.mutex);
      for (int dev = 0; dev < runtime_state::max_devices; ++dev) {
        const device_runtime& d = rt.devices[dev];
        if (d.ready && d.generations != nullptr)
          (void)backend::store_generation(d.generations, slot, generation, static_cast<cudaStream_t>(stream), dev);
      }
    }
    host_hooks::released(slot, generation, stream);
  }
};

/// Installed at start-up by every program that includes the runtime.
inline const bool runtime_hooks_installed = install_static_hooks<runtime_hooks>();
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
