// SPDX-License-Identifier: Apache-2.0
// The host side of device checking: launch(), check(), cuda_error, device_buffer, the per-device
// report channel and lifetime table. Needs nvcc, or CUGUARD_EMULATION=1 with a host compiler.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/backend.hpp>
#include <cuguard/detail/channel.hpp>
#include <cuguard/detail/device_state.hpp>
#include <cuguard/detail/fail.hpp>
#include <cuguard/detail/host_hooks.hpp>
#include <cuguard/detail/state_symbols.hpp>
#include <cuguard/lifetime.hpp>
#include <cuguard/report.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// A CUDA runtime error (or a failure of an emulated launch), naming the launch it follows.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The cudaError_t value (0 for failures of emulated launches that CUDA has no code for).
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// Grid, block, dynamic shared memory and stream of a launch. Its constructor records the
/// caller's source position as the launch site: `cuguard::launch({grid, block}, kernel, ...)`.
struct launch_config {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
  const char* name = nullptr; ///< kernel name for reports; null: looked up from the kernel
  cuda::std::source_location where;

  launch_config(dim3 grid_, dim3 block_, std::size_t shared_bytes_ = 0, cudaStream_t stream_ = nullptr,
                const char* name_ = nullptr, cuda::std::source_location where_ = cuda::std::source_location::current())
      : grid(grid_), block(block_), shared_bytes(shared_bytes_), stream(stream_), name(name_), where(where_) {}
};

namespace detail {

/// The grid argument of launch(kernel, grid, block, ...): records the launch site.
struct grid_arg {
  dim3 value;
  cuda::std::source_location where;
  grid_arg(dim3 v, cuda::std::source_location w = cuda::std::source_location::current()) : value(v), where(w) {}
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  grid_arg(I x, cuda::std::source_location w = cuda::std::source_location::current())
      : value(static_cast<unsigned>(x)), where(w) {}
};

/// One recent launch, kept so that a report can name the kernel and where it was launched.
struct launch_entry {
  std::uint64_t id = 0;
  std::string kernel;
  cuda::std::source_location where;
  dim3 grid;
  dim3 block;
  cudaStream_t stream = nullptr;
};

/// What the runtime keeps per device.
struct device_runtime {
  bool ready = false;
  channel* host_channel = nullptr;      ///< the channel, as the host sees it
  channel* device_channel = nullptr;    ///< the same memory, as the device sees it
  channel_counters* counters = nullptr; ///< device memory (host memory under emulation)
  std::uint32_t* generations = nullptr; ///< device copy of the lifetime generations (CUDA)
  unsigned long long* launch_id = nullptr;
  unsigned symbols_version = ~0u;
  std::uint64_t last_launch = 0;
  /// Streams launched on since the whole device was last checked (at most a few are kept): with
  /// more than one, kernels may have overlapped, and the device's last launch number may be
  /// another stream's (resolve_launch).
  std::vector<cudaStream_t> streams;
};

struct runtime_state {
  static constexpr int max_devices = 64;
  static constexpr std::size_t ring_size = 256;
  std::mutex mutex;
  device_runtime devices[max_devices];
  std::uint64_t launches = 0;
  launch_entry ring[ring_size];
  std::mutex names_mutex;
  std::vector<std::pair<const void*, std::string>> names;
#if CUGUARD_IMPL_EMULATION
  unsigned long long emulated_launch_id = 0;
  bool context_lost = false; ///< an emulated kernel trapped
#endif
};

inline runtime_state& runtime() {
  static runtime_state r;
  return r;
}

inline void throw_cuda(backend::status s, const std::string& what) {
  throw cuda_error(s, "cuguard: " + what + ": CUDA error " + backend::error_name(s) + " (" +
                          backend::error_string(s) + ")");
}

/// The channel and tables of `device`, created on first use, and the device state written into
/// every translation unit's symbol (call with the runtime mutex held).
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
#if CUGUARD_IMPL_EMULATION
    d.counters = static_cast<channel_counters*>(std::calloc(1, sizeof(channel_counters)));
#else
    void* counters = nullptr;
    if (const backend::status s = cudaMalloc(&counters, sizeof(channel_counters)))
      throw_cuda(s, "cannot allocate the report channel's counters");
    cudaMemset(counters, 0, sizeof(channel_counters));
    d.counters = static_cast<channel_counters*>(counters);
#endif
#if !CUGUARD_IMPL_EMULATION
    std::vector<std::uint32_t> snapshot(lifetime_slots);
    for (std::uint32_t i = 0; i < lifetime_slots; ++i) snapshot[i] = generation_of(i);
    void* table = nullptr;
    void* launch_id = nullptr;
    if (const backend::status s = cudaMalloc(&table, snapshot.size() * sizeof(std::uint32_t)))
      throw_cuda(s, "cannot allocate the lifetime table");
    if (const backend::status s = cudaMalloc(&launch_id, sizeof(unsigned long long)))
      throw_cuda(s, "cannot allocate the launch counter");
    cudaMemcpy(table, snapshot.data(), snapshot.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice);
    cudaMemset(launch_id, 0, sizeof(unsigned long long));
    cudaDeviceSynchronize(); // once per device: kernels on any stream see the initialized state
    d.generations = static_cast<std::uint32_t*>(table);
    d.launch_id = static_cast<unsigned long long*>(launch_id);
#else
    d.launch_id = &rt.emulated_launch_id;
#endif
    d.ready = true;
  }
#if CUGUARD_IMPL_EMULATION
  emulated_device_state = device_state{d.device_channel, d.counters, nullptr, d.launch_id, device};
#elif CUGUARD_IMPL_CHECKS
  state_symbols& symbols = registered_state_symbols();
  std::lock_guard<std::mutex> lock(symbols.mutex);
  if (d.symbols_version != symbols.version) {
    const device_state state{d.device_channel, d.counters, d.generations, d.launch_id, device};
    for (const void* symbol : symbols.symbols) {
      if (cudaMemcpyToSymbol(symbol, &state, sizeof state) != cudaSuccess)
        (void)cudaGetLastError(); // a module without code for this device: nothing of it can run here
    }
    cudaDeviceSynchronize(); // the symbols are written before any kernel of any stream reads them
    d.symbols_version = symbols.version;
  }
#endif
  return d;
}

inline device_runtime& ensure_device() {
  const int device = backend::current_device();
  std::lock_guard<std::mutex> lock(runtime().mutex);
  return ensure_device_locked(device);
}

inline const std::string& kernel_name(const void* kernel) {
  runtime_state& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.names_mutex);
  for (const auto& n : rt.names)
    if (n.first == kernel) return n.second;
  rt.names.emplace_back(kernel, backend::kernel_name(kernel));
  return rt.names.back().second;
}

/// "gather_rows<<<(32,1,1),(256,1,1)>>> at file:line" for messages.
inline std::string describe_launch(const launch_entry& e) {
  std::string s = "launch #" + std::to_string(e.id) + ' ' + e.kernel + "<<<(" + std::to_string(e.grid.x) + ',' +
                  std::to_string(e.grid.y) + ',' + std::to_string(e.grid.z) + "),(" + std::to_string(e.block.x) +
                  ',' + std::to_string(e.block.y) + ',' + std::to_string(e.block.z) + ")>>> at " +
                  e.where.file_name() + ':' + std::to_string(e.where.line());
  return s;
}

#if CUGUARD_IMPL_CHECKS && !CUGUARD_IMPL_EMULATION
/// Writes `value` to device memory in stream order, the value travelling as a kernel argument:
/// no host buffer that a later update could overwrite before the copy ran, and a node that a
/// CUDA graph capture can record (a copy from pageable memory cannot be captured).
template <class T>
__global__ void store_value(T* cell, T value) {
  *cell = value;
}
template <class T>
inline cudaError_t store_async(T* cell, T value, cudaStream_t stream) {
  void* args[] = {&cell, &value};
  const cudaError_t s = cudaLaunchKernel(reinterpret_cast<const void*>(&store_value<T>), dim3(1), dim3(1), args, 0, stream);
  if (s != cudaSuccess) (void)cudaGetLastError(); // this launch's error only
  return s;
}
#endif

/// Numbers the launch, remembers it, and makes the device see its number in stream order.
inline launch_entry begin_launch(const launch_config& config, const void* kernel) {
  runtime_state& rt = runtime();
  launch_entry e;
  e.kernel = config.name != nullptr ? std::string(config.name) : kernel_name(kernel);
  e.where = config.where;
  e.grid = config.grid;
  e.block = config.block;
  e.stream = config.stream;
  const int device = backend::current_device();
  std::lock_guard<std::mutex> lock(rt.mutex);
#if CUGUARD_IMPL_EMULATION
  if (rt.context_lost)
    throw cuda_error(0, "cuguard: cannot launch " + e.kernel +
                            ": an earlier emulated kernel trapped, and a trapped CUDA context is lost");
#endif
  e.id = ++rt.launches;
  rt.ring[e.id % runtime_state::ring_size] = e;
#if CUGUARD_IMPL_CHECKS
#  if !CUGUARD_IMPL_EMULATION
  // Setting a device up allocates and copies synchronously, which a graph capture forbids.
  if (backend::capturing(config.stream)) {
    bool set_up = device >= 0 && device < runtime_state::max_devices && rt.devices[device].ready;
    if (set_up) {
      state_symbols& symbols = registered_state_symbols();
      std::lock_guard<std::mutex> symbols_lock(symbols.mutex);
      set_up = rt.devices[device].symbols_version == symbols.version;
    }
    if (!set_up)
      throw_cuda(cudaErrorStreamCaptureUnsupported,
                 "cannot capture " + describe_launch(e) + " into a CUDA graph: cuguard sets device " +
                     std::to_string(device) + " up (or a newly loaded module) at its first launch, and a "
                     "capture cannot record that; launch once with cuguard::launch before capturing");
  }
#  endif
  device_runtime& d = ensure_device_locked(device);
  d.last_launch = e.id;
  if (d.streams.size() < 4 && std::find(d.streams.begin(), d.streams.end(), config.stream) == d.streams.end())
    d.streams.push_back(config.stream);
#  if CUGUARD_IMPL_EMULATION
  rt.emulated_launch_id = e.id;
#  else
  const unsigned long long id = e.id; // pageable source: copied before cudaMemcpyAsync returns
  if (backend::capturing(config.stream)) {
    if (const cudaError_t s = store_async(d.launch_id, id, config.stream)) // a node of the graph
      throw_cuda(s, "cannot record " + describe_launch(e));
  } else if (const backend::status s =
                 cudaMemcpyAsync(d.launch_id, &id, sizeof id, cudaMemcpyHostToDevice, config.stream)) {
    throw_cuda(s, "cannot record " + describe_launch(e));
  }
#  endif
#else
  if (device >= 0 && device < runtime_state::max_devices) rt.devices[device].last_launch = e.id;
#endif
  return e;
}

template <class T>
struct is_checked_view : std::false_type {};
template <class T, std::size_t R, class I>
struct is_checked_view<checked_view<T, R, I>> : std::true_type {};

/// Checks a kernel argument before the launch: a view of host memory, of another device's
/// memory, or of a released allocation is reported at the launch site.
template <class P>
void check_argument(const P& p, const launch_entry& e, int device) {
#if CUGUARD_IMPL_CHECKS
  if constexpr (is_checked_view<P>::value) {
    const bool host = p.space() == memory_space::host;
    const bool other_device = p.space() == memory_space::device && p.device() >= 0 && p.device() != device;
    const bool stale = !alive(p.token());
    if (!host && !other_device && !stale) return;
    report_host(
        [&](violation& v, pending& pp) {
          fill_view(v, pp, p);
          v.op = operation::launch;
          if (stale) {
            v.kind = violation_kind::use_after_free;
            v.arg[1] = p.token().slot;
            v.arg[2] = p.token().generation;
          } else {
            v.kind = violation_kind::wrong_memory_space;
            v.arg[1] = other_device ? 1 : 0;
            v.arg[2] = device;
          }
          copy_text(v.launch.kernel, e.kernel.c_str());
          v.launch.id = e.id;
        },
        e.where);
  }
#else
  (void)p, (void)e, (void)device;
#endif
}

/// Gives a view argument the number of its launch, so that a report names this launch even when
/// kernels of other streams started since (the device's launch-number cell names the last one).
template <class P>
void stamp_launch(P& p, std::uint64_t id) noexcept {
  if constexpr (is_checked_view<P>::value) p = p.with_launch_number(id);
  (void)p, (void)id;
}

/// Completes a record that device code wrote: the kind of a failed access, the texts (from host
/// memory, or copied from the device while the context lives), the allocation of a stale token,
/// the kernel name and launch site.
inline void complete_record(violation& v, pending& p) {
  struct device_texts {
    std::string buffer;
    const char* operator()(std::uint64_t address, bool on_host) {
      if (on_host) return reinterpret_cast<const char*>(address);
      return backend::read_text(address, buffer) ? buffer.c_str() : nullptr;
    }
  } text;
  finish(v, p, text);
  describe_stale_allocation(v);
  runtime_state& rt = runtime();
  const launch_entry& e = rt.ring[v.launch.id % runtime_state::ring_size];
  if (v.launch.id != 0 && e.id == v.launch.id) {
    copy_text(v.launch.kernel, e.kernel.c_str());
    copy_site(v.launch.site, e.where);
  }
}

template <class Kernel, class Tuple, std::size_t... I>
void run_kernel(const launch_config& config, Kernel kernel, Tuple& params, const launch_entry& e,
                std::index_sequence<I...>) {
#if CUGUARD_IMPL_EMULATION
  struct context {
    Kernel kernel;
    Tuple* params;
  } ctx{kernel, &params};
  try {
    emulation::detail::run_grid(
        config.grid, config.block, config.shared_bytes,
        [](void* c) {
          auto* x = static_cast<context*>(c);
          x->kernel(std::get<I>(*x->params)...);
        },
        &ctx);
  } catch (const emulation::detail::trapped&) {
    std::lock_guard<std::mutex> lock(runtime().mutex);
    runtime().context_lost = true;
  } catch (const std::exception& ex) {
    throw cuda_error(0, "cuguard: " + describe_launch(e) + " failed under emulation: " + ex.what());
  }
#else
  void* argv[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(params))..., nullptr};
  const cudaError_t s = cudaLaunchKernel(reinterpret_cast<const void*>(kernel), config.grid, config.block, argv,
                                         config.shared_bytes, config.stream);
  if (s != cudaSuccess) {
    (void)cudaGetLastError();
    throw_cuda(s, "cannot start " + describe_launch(e));
  }
#endif
}

inline bool launch_blocking() {
  const char* e = std::getenv("CUGUARD_LAUNCH_BLOCKING");
  return e != nullptr && std::strcmp(e, "1") == 0;
}

} // namespace detail

namespace detail {

/// What decides which launch a device record names (see choose_launch).
struct launch_evidence {
  std::uint64_t last = 0;    ///< the device's last launch number when the violation was recorded
  std::uint64_t carried = 0; ///< the number the view carried (0: none)
  const launch_entry* last_entry = nullptr;    ///< the runtime's entry of `last`, if still known
  const launch_entry* carried_entry = nullptr; ///< the same for `carried`
  std::size_t streams = 0;   ///< streams launched on since the device was last checked as a whole
  bool may_overlap = false;  ///< kernels may have run at once (several streams, a GPU, no launch blocking)
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
inline std::string choose_launch(violation& v, const launch_evidence& e) {
  const std::string several = std::to_string(e.streams) + (e.streams >= 4 ? " or more" : "");
  const std::string overlap = "launches on " + several + " streams since the device was last checked as a whole";
  const std::string maybe_other = "the launch named is the last one started before the violation, which may be "
                                  "another stream's";
  v.launch.id = e.last;
  if (e.carried == 0 || e.carried == e.last) {
    if (e.carried != 0 || !e.may_overlap) return "";
    return "\n  (" + overlap + ", and the view carries no launch number (made in device code, or not a kernel "
           "argument itself): " + maybe_other + ")";
  }
  const bool fits = e.carried_entry != nullptr && same_dims(e.carried_entry->grid, v.launch.grid) &&
                    same_dims(e.carried_entry->block, v.launch.block);
  const bool same_stream =
      e.last_entry != nullptr && e.carried_entry != nullptr && e.last_entry->stream == e.carried_entry->stream;
  if (fits && (e.last == 0 || (e.may_overlap && !same_stream))) {
    v.launch.id = e.carried;
    if (e.last == 0) return "";
    return "\n  (" + overlap + ": named after the launch that passed the view; the device's launch counter showed #" +
           std::to_string(e.last) + ", another stream's launch, unless an earlier launch kept the view in memory)";
  }
  return "\n  (the view was passed to launch #" + std::to_string(e.carried) + " and kept in memory" +
         (e.may_overlap ? "; " + overlap + ": " + maybe_other : std::string()) + ")";
}

#if CUGUARD_IMPL_CHECKS
/// choose_launch with the evidence of `d` (call with the runtime's mutex held).
inline std::string resolve_launch(violation& v, const pending& p, const device_runtime& d) {
  const runtime_state& rt = runtime();
  const auto known = [&](std::uint64_t id) -> const launch_entry* {
    const launch_entry& e = rt.ring[id % runtime_state::ring_size];
    return id != 0 && e.id == id ? &e : nullptr;
  };
  launch_evidence e;
  e.last = v.launch.id;
  e.carried = p.view_launch;
  e.last_entry = known(e.last);
  e.carried_entry = known(e.carried);
  e.streams = d.streams.size();
  // Emulated launches run one at a time, and CUGUARD_LAUNCH_BLOCKING checks each before the next.
  e.may_overlap = !CUGUARD_IMPL_EMULATION && e.streams > 1 && !launch_blocking();
  return choose_launch(v, e);
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
#  if CUGUARD_IMPL_EMULATION
  (void)lost, (void)err; // emulation loses no context it could not read the record from
  counters = *d.counters;
  have_counters = true;
#  else
  if (!lost) have_counters = cudaMemcpy(&counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost) == cudaSuccess;
#  endif
  const bool recorded = have_counters ? counters.claim != 0u : __atomic_load_n(&ch->started, __ATOMIC_ACQUIRE) != 0u;
  if (!recorded) return false;
#  if !CUGUARD_IMPL_EMULATION
  // A kernel of another stream may still be writing the record (or counting): let every kernel
  // finish before the record is read and cleared.
  if (!lost) {
    const cudaError_t all = cudaDeviceSynchronize();
    if (all != cudaSuccess) {
      err = all;
      lost = true;
      have_counters = false;
    } else {
      have_counters = cudaMemcpy(&counters, d.counters, sizeof counters, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
  }
#  endif
  out.complete = __atomic_load_n(&ch->ready, __ATOMIC_ACQUIRE) != 0u;
  std::memcpy(&out.v, &ch->record, sizeof out.v);
  out.p = ch->to_finish;
  out.v.count = have_counters ? counters.count : 1;
  // Cleared for the next violation, which writes only the fields that apply to it.
  std::memset(&ch->record, 0, sizeof ch->record);
  ch->to_finish = pending{};
  __atomic_store_n(&ch->started, 0u, __ATOMIC_RELAXED);
  __atomic_store_n(&ch->ready, 0u, __ATOMIC_RELAXED);
#  if CUGUARD_IMPL_EMULATION
  *d.counters = channel_counters{};
#  else
  if (!lost) {
    cudaMemset(d.counters, 0, sizeof(channel_counters));
    cudaDeviceSynchronize(); // cleared before a kernel of any stream can count again
  }
#  endif
  return true;
}

/// Completes a device record and throws it as a violation_error, with notes on what is uncertain.
[[noreturn]] inline void throw_device_record(device_runtime& d, device_record& r, bool lost, backend::status err) {
  std::string note;
  if (!r.complete) note += "\n  (the record is incomplete: the kernel stopped while writing it)";
  {
    std::lock_guard<std::mutex> lock(runtime().mutex);
    note += resolve_launch(r.v, r.p, d);
    d.streams.clear();
  }
  complete_record(r.v, r.p);
  const pending& p = r.p;
  if (p.file != 0 || p.function != 0 || p.type != 0 || p.label != 0 || p.origin_label != 0)
    note += lost ? "\n  (names in device memory could not be read: the CUDA context is lost)"
                 : "\n  (some names in device memory could not be read)";
  if (lost) {
    note += "\n  (the kernel trapped";
#  if !CUGUARD_IMPL_EMULATION
    note += std::string(": CUDA error ") + backend::error_name(err);
#  else
    (void)err;
#  endif
    note += "; the CUDA context is lost and this process cannot launch again)";
  }
  throw violation_error(r.v, note);
}
#endif

} // namespace detail

/// Waits for the work of `stream` (all work of the device when null), then reports: a violation
/// recorded by device code throws violation_error (and the channel is cleared, so the program
/// can go on); a CUDA error throws cuda_error naming the launch it follows. A trapped kernel
/// still yields its recorded report.
inline void check(cudaStream_t stream = nullptr) {
  detail::backend::status err = detail::backend::synchronize(stream);
  detail::runtime_state& rt = detail::runtime();
#if CUGUARD_IMPL_EMULATION
  bool lost = false;
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    lost = rt.context_lost;
  }
#else
  bool lost = err != 0;
#endif
#if CUGUARD_IMPL_CHECKS
  detail::device_runtime* ready = nullptr;
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    const int device = detail::backend::current_device();
    if (device >= 0 && device < detail::runtime_state::max_devices && rt.devices[device].ready)
      ready = &rt.devices[device];
  }
  // No channel yet (no cuguard::launch on this device): nothing can have been recorded, and a
  // context lost to a trap could not make one now.
  if (ready != nullptr) {
    detail::device_record record;
    if (detail::read_device_record(*ready, record, lost, err)) detail::throw_device_record(*ready, record, lost, err);
    if (stream == nullptr) { // every stream waited for: no kernel overlaps what comes next
      std::lock_guard<std::mutex> lock(rt.mutex);
      ready->streams.clear();
    }
  }
#endif
  if (err != 0 || lost) {
    std::string after;
    {
      std::lock_guard<std::mutex> lock(rt.mutex);
      const int device = detail::backend::current_device();
      const std::uint64_t last = device >= 0 && device < detail::runtime_state::max_devices
                                     ? rt.devices[device].last_launch
                                     : 0;
      const detail::launch_entry& e = rt.ring[last % detail::runtime_state::ring_size];
      if (last != 0 && e.id == last) after = " after " + detail::describe_launch(e);
    }
    if (err != 0) detail::throw_cuda(err, "check" + after);
    throw cuda_error(0, "cuguard: check" + after + ": an emulated kernel trapped; the CUDA context is lost");
  }
}

/// Launches a native __global__ kernel: `config` gives grid, block, dynamic shared memory and
/// stream, and its construction records the launch site. Checked builds number the launch for
/// reports, check every view argument (memory space, lifetime) before the kernel runs, and with
/// CUGUARD_LAUNCH_BLOCKING=1 in the environment call check() after it.
template <class... Params, class... Args>
void launch(const launch_config& config, void (*kernel)(Params...), Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "cuguard::launch: the number of arguments differs from the "
                                                      "number of kernel parameters");
  static_assert(!(std::is_reference<Params>::value || ...), "cuguard::launch: kernel parameters must be values, "
                                                           "not references");
  std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  const detail::launch_entry entry = detail::begin_launch(config, reinterpret_cast<const void*>(kernel));
  const int device = detail::backend::current_device();
  std::apply([&](const auto&... p) { (detail::check_argument(p, entry, device), ...); }, params);
  std::apply([&](auto&... p) { (detail::stamp_launch(p, entry.id), ...); }, params);
  detail::run_kernel(config, kernel, params, entry, std::index_sequence_for<Params...>{});
  // A stream being captured into a graph runs nothing yet (and synchronizing it would end the capture).
  if (detail::launch_blocking() && !detail::backend::capturing(config.stream)) check(config.stream);
}

/// launch(kernel, grid, block, args...): the same with no dynamic shared memory, default stream.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), detail::grid_arg grid, dim3 block, Args&&... args) {
  launch(launch_config(grid.value, block, 0, nullptr, nullptr, grid.where), kernel, std::forward<Args>(args)...);
}

// -------------------------------------------------------------------------------------------------
// device_buffer
// -------------------------------------------------------------------------------------------------

/// An owning, labelled device allocation of `count` elements of T. Its views carry a lifetime
/// token: after release (or destruction) every access through them reports use_after_free,
/// naming where the buffer was allocated and released. Release is stream-ordered: kernels
/// queued on the stream before the release are not flagged.
template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable<T>::value, "device_buffer: T must be trivially copyable");

 public:
  device_buffer() = default;

  /// Allocates `count` elements (uninitialized) on the current device, in the order of `stream`.
  device_buffer(std::size_t count, const char* label, cudaStream_t stream = nullptr,
                cuda::std::source_location where = cuda::std::source_location::current())
      : size_(count), label_(label != nullptr ? label : ""), stream_(stream) {
    void* p = nullptr;
    if (const detail::backend::status s = detail::backend::allocate_device(&p, bytes(), stream))
      detail::throw_cuda(s, "cannot allocate device_buffer '" + std::string(label_) + "' of " +
                                std::to_string(bytes()) + " bytes");
    data_ = static_cast<T*>(p);
    device_ = detail::backend::current_device();
    track(data_, bytes(), label_, memory_space::device, device_, where);
  }

  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept { swap(other); }
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      reset_quietly();
      swap(other);
    }
    return *this;
  }
  ~device_buffer() { reset_quietly(); }

  /// Releases the memory in the order of `stream` (default: the allocation's stream).
  void release(cuda::std::source_location where = cuda::std::source_location::current()) {
    release(stream_, where);
  }
  void release(cudaStream_t stream, cuda::std::source_location where = cuda::std::source_location::current()) {
    if (data_ == nullptr) return;
#if CUGUARD_IMPL_CHECKS
    detail::registry().release(data_, where, stream);
#else
    (void)where;
#endif
    detail::backend::free_device(data_, stream);
    data_ = nullptr;
    size_ = 0;
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  const char* label() const noexcept { return label_; }
  int device() const noexcept { return device_; }

  /// A checked view of the buffer with the given extents (their product may be smaller than size()).
  template <std::size_t Rank>
  checked_view<T, Rank> view(const detail::integer (&extents)[Rank],
                             cuda::std::source_location where = cuda::std::source_location::current()) const {
    return checked_view<T, Rank>(data_, extents, label_, where);
  }
  template <class I, std::size_t Rank, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  checked_view<T, Rank> view(const I (&extents)[Rank],
                             cuda::std::source_location where = cuda::std::source_location::current()) const {
    return checked_view<T, Rank>(data_, detail::to_integers(extents).v, label_, where);
  }
  /// The whole buffer as a rank-1 view.
  checked_view<T, 1> view(cuda::std::source_location where = cuda::std::source_location::current()) const {
    return checked_view<T, 1>(data_, {static_cast<std::int64_t>(size_)}, label_, where);
  }

  /// Copies `count` elements from host memory into the buffer (synchronous).
  void copy_from_host(const T* src, std::size_t count) {
    check_count(count, "copy_from_host");
    if (const detail::backend::status s = detail::backend::copy(data_, src, count * sizeof(T), stream_))
      detail::throw_cuda(s, "copy to device_buffer '" + std::string(label_) + "' failed");
  }
  void copy_from_host(const std::vector<T>& src) { copy_from_host(src.data(), src.size()); }

  /// Copies `count` elements of the buffer into host memory (synchronous).
  void copy_to_host(T* dst, std::size_t count) const {
    check_count(count, "copy_to_host");
    if (const detail::backend::status s = detail::backend::copy(dst, data_, count * sizeof(T), stream_))
      detail::throw_cuda(s, "copy from device_buffer '" + std::string(label_) + "' failed");
  }
  std::vector<T> to_host() const {
    std::vector<T> out(size_);
    copy_to_host(out.data(), size_);
    return out;
  }

  /// Sets every byte to `value` (asynchronous, in the allocation's stream).
  void fill_bytes(int value) { detail::backend::set_async(data_, value, bytes(), stream_); }

 private:
  void check_count(std::size_t count, const char* what) const {
    if (count > size_)
      throw std::out_of_range(std::string("cuguard::device_buffer::") + what + ": " + std::to_string(count) +
                              " elements do not fit '" + label_ + "' of " + std::to_string(size_) + " elements");
  }
  void reset_quietly() noexcept {
    try {
      release(stream_, cuda::std::source_location::current("the destructor of cuguard::device_buffer", "", 0, 0));
    } catch (...) {
    }
  }
  void swap(device_buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(label_, o.label_);
    std::swap(stream_, o.stream_);
    std::swap(device_, o.device_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  const char* label_ = "";
  cudaStream_t stream_ = nullptr;
  int device_ = -1;
};

namespace detail {

#if CUGUARD_IMPL_CHECKS
/// Stream-ordered update of the device copies of a released slot's generation.
inline void update_device_generation(std::uint32_t slot, std::uint32_t generation, void* stream) {
#  if CUGUARD_IMPL_EMULATION
  (void)slot, (void)generation, (void)stream; // emulated kernels read the host table itself
#  else
  runtime_state& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.mutex);
  const int current = backend::current_device();
  for (int dev = 0; dev < runtime_state::max_devices; ++dev) {
    device_runtime& d = rt.devices[dev];
    if (!d.ready) continue;
    if (dev == current) {
      // The kernel cannot run on another device's stream: a copy can (from pageable memory, staged
      // before cudaMemcpyAsync returns). A failed update leaves the slot's old generation: a use
      // after free that goes unreported.
      if (store_async(d.generations + slot, generation, static_cast<cudaStream_t>(stream)) != cudaSuccess &&
          cudaMemcpyAsync(d.generations + slot, &generation, sizeof generation, cudaMemcpyHostToDevice,
                          static_cast<cudaStream_t>(stream)) != cudaSuccess)
        (void)cudaGetLastError();
    } else {
      cudaSetDevice(dev);
      cudaMemcpy(d.generations + slot, &generation, sizeof generation, cudaMemcpyHostToDevice);
      cudaSetDevice(current);
    }
  }
#  endif
}

/// What views ask of the host runtime: the lifetime registry, and for untracked memory the
/// backend's word on where a pointer lives.
class runtime_hooks final : public host_hooks {
 public:
  allocation_span locate(const void* p) const override {
    allocation_span found = registry().locate(p);
    if (!found.tracked) backend::memory_space_of(p, found.space, found.device);
    return found;
  }
  bool describe(const lifetime_token& t, violation& v) const override { return registry().describe(t, v); }
};

inline bool install_runtime_hooks() {
  (void)registry(); // constructed before the hooks, so that it outlives them
  static const runtime_hooks hooks;
  installed_host_hooks.store(&hooks, std::memory_order_release);
  lifetime_release_hook = &update_device_generation;
  return true;
}
/// The runtime's hooks into the lifetime registry and view construction, set at start-up.
inline const bool runtime_hooks_installed = install_runtime_hooks();
#endif

} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
