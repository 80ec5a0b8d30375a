// SPDX-License-Identifier: Apache-2.0
// The emulated side of detail::backend (CUGUARD_EMULATION=1): device memory is host memory that
// the backend keeps a list of, kernels run on the fiber scheduler, nothing runs asynchronously.
#pragma once
// Part of detail/runtime/backend.hpp, which includes it after what both sides share.

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/block_pool.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/runtime/backend/emulated_memory.hpp>
#include <cuguard/detail/runtime/error_exit.hpp>
#include <cuguard/detail/runtime/kernel_arguments.hpp>
#include <cuguard/detail/runtime/local_symbol.hpp>
#include <cuguard/detail/runtime/source_lines.hpp>
#include <cuguard/detail/record/state_symbols.hpp>
#include <cuguard/emulation.hpp>
#include <cuguard/detail/fail/fail.hpp> // claim_record, publish_record

#include <driver_types.h>
#include <vector_types.h>

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

/// The sanitizers' symbolizer (where a sanitizer's runtime is linked).
extern "C" void __sanitizer_symbolize_pc(void* pc, const char* format, char* out, std::size_t size) __attribute__((weak));

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace backend {

/// Emulated launches run one at a time: no two kernels overlap.
inline constexpr bool kernels_may_overlap = false;

inline status copy(void* dst, const void* src, std::size_t bytes, cudaStream_t) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
  return 0;
}
inline status copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t s) { return copy(dst, src, bytes, s); }
inline status set_async(void* dst, int value, std::size_t bytes, cudaStream_t) {
  std::memset(dst, value, bytes);
  return 0;
}
inline status synchronize(cudaStream_t) { return 0; }
inline bool capturing(cudaStream_t, bool = false) { return false; } // emulation has no graph capture
inline int current_device() { return 0; }
inline status allocate_mapped(void** host, void** device, std::size_t bytes) {
  *host = std::calloc(1, bytes);
  *device = *host;
  return *host == nullptr ? 2 : 0;
}
/// CUDA's name and text of the error codes emulation returns.
struct error_text {
  int code;
  const char* name;
  const char* text;
};
inline constexpr error_text error_texts[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {600, "cudaErrorNotReady", "device not ready"},
    {215, "cudaErrorUnsupportedLimit", "unsupported limit"},
    {217, "cudaErrorPeerAccessUnsupported", "peer access is not supported between these two devices"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {712, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {713, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {900, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {999, "cudaErrorUnknown", "unknown error"},
};
inline const error_text* find_error_text(status s) {
  for (const error_text& e : error_texts)
    if (e.code == s) return &e;
  return nullptr;
}
inline const char* error_name(status s) {
  const error_text* e = find_error_text(s);
  return e != nullptr ? e->name : "unrecognized error code"; // as libcudart names a code it does not know
}
inline const char* error_string(status s) {
  const error_text* e = find_error_text(s);
  return e != nullptr ? e->text : "unrecognized error code";
}
inline bool memory_space_of(const void* p, memory_space& space, int& device) {
  std::uintptr_t begin = 0;
  emulated_block block{};
  if (find_block(p, begin, block)) {
    space = block.space;
    device = block.space == memory_space::pinned ? -1 : 0;
    return true;
  }
  space = memory_space::host;
  device = -1;
  return true;
}
/// A text that device code pointed to (under emulation, host memory; read as on a GPU).
inline bool read_text(std::uint64_t address, text& out) {
  return read_text_in_pieces(address, out, [](void* dst, const void* src, std::size_t bytes) {
    // Up to the terminating zero only: host memory past a text's end is not the reader's to touch.
    for (std::size_t i = 0; i < bytes; ++i)
      if ((static_cast<char*>(dst)[i] = static_cast<const char*>(src)[i]) == '\0') break;
    return true;
  });
}
inline text kernel_name(const void* fn) {
  Dl_info info{};
  if (::dladdr(fn, &info) == 0) return "kernel";
  if (info.dli_sname != nullptr) return readable_name(info.dli_sname);
  // Not exported (an anonymous namespace, static): the file's own symbol table.
  text name = "kernel";
  local_symbol(info.dli_fname, info.dli_fbase, fn, [&](const char* mangled) { name = readable_name(mangled); });
  return name;
}


/// An emulated kernel trapped: as on a GPU, nothing can be launched again.
inline std::atomic<bool> trapped_context{false};
inline bool context_lost() { return trapped_context.load(std::memory_order_acquire); }
/// The trap was a failed device assert() (detail/emulation/device_assert.hpp).
inline std::atomic<bool> assert_trapped{false};
/// What every call returns once the context is lost: cudaErrorAssert after a failed assert(),
/// cudaErrorLaunchFailure after __trap(), as CUDA's.
inline cudaError_t lost_context_error() {
  return assert_trapped.load(std::memory_order_acquire) ? cudaErrorAssert : cudaErrorLaunchFailure;
}
/// The counters are host memory: readable after a trap.
inline constexpr bool counters_survive_a_trap = true;

inline status synchronize_device() { return 0; }

/// The report channel's counters (device memory on a GPU), zeroed.
inline status allocate_counters(channel_counters** counters) {
  *counters = static_cast<channel_counters*>(std::calloc(1, sizeof(channel_counters)));
  return *counters == nullptr ? 2 : 0;
}
inline bool read_counters(const channel_counters* counters, channel_counters& out) {
  out = *counters;
  return true;
}
inline void clear_counters(channel_counters* counters) { *counters = channel_counters{}; }

/// Emulated kernels read the host's generation table itself (no device copy), and the launch
/// number from a host cell.
inline unsigned long long emulated_launch_id = 0;
inline status allocate_tables(std::uint32_t** generations, unsigned long long** launch_id, const std::uint32_t*,
                              std::size_t) {
  *generations = nullptr;
  *launch_id = &emulated_launch_id;
  return 0;
}
inline status store_generation(std::uint32_t*, std::uint32_t, std::uint32_t, cudaStream_t, int) { return 0; }

/// Makes `state` what device code of every translation unit reads.
inline void publish_state(const device_state& state, const state_symbol*) { emulated_device_state = state; }

/// The launch number device code reads, in the order of `stream`.
inline status record_launch(unsigned long long* cell, unsigned long long id, cudaStream_t, bool) {
  *cell = id;
  return 0;
}

/// What the scheduler found that involves two threads of a block (a divergent barrier, a race
/// on shared memory): the block, the thread and where it was, the other thread and where it was.
struct scheduler_finding {
  uint3 block, thread, other;
  detail::engine::source_site site, other_site;
};

/// A site of a finding: its file, function and line, found from its pc where only that is known
/// (a raw access seen by a sanitizer's hook, a fault): by the sanitizer's symbolizer where one is
/// linked, else by addr2line (both need debug information), else the module and function (dladdr).
class finding_site {
 public:
  explicit finding_site(const detail::engine::source_site& s) : site_(s) {
    if (s.file != nullptr) return;
    site_ = {"", "", 0, s.pc};
    if (s.pc == nullptr) return;
    char found[1024];
    if (&__sanitizer_symbolize_pc != nullptr) {
      __sanitizer_symbolize_pc(const_cast<void*>(s.pc), "%s\x1f%l\x1f%f", found, sizeof found);
      char* line = std::strchr(found, '\x1f');
      char* function = line != nullptr ? std::strchr(line + 1, '\x1f') : nullptr;
      if (function != nullptr && std::strncmp(found, "<null>", 6) != 0) {
        *line++ = *function++ = '\0';
        file_ = found;
        function_ = function;
        site_ = {file_.c_str(), function_.c_str(), static_cast<unsigned>(std::strtoul(line, nullptr, 10)), s.pc};
        return;
      }
    }
    unsigned line = 0;
    if (source_line_of(s.pc, file_, function_, line)) { // addr2line, where no symbolizer is linked
      site_ = {file_.c_str(), function_.c_str(), line, s.pc};
      return;
    }
    Dl_info where{};
    if (::dladdr(const_cast<void*>(s.pc), &where) == 0) return;
    file_ = where.dli_fname != nullptr ? where.dli_fname : "";
    if (where.dli_sname != nullptr) function_ = readable_name(where.dli_sname);
    site_ = {file_.c_str(), function_.c_str(), 0, s.pc};
  }
  finding_site(const finding_site&) = delete;
  finding_site& operator=(const finding_site&) = delete;
  const detail::engine::source_site& get() const noexcept { return site_; }

 private:
  detail::engine::source_site site_;
  text file_, function_;
};

/// Records a finding of the scheduler as device code records a violation (the first violation
/// of the launch keeps the record; every one is counted): the fields every such record has, then
/// `fill(v)` the kind's own, into `state`'s channel (a fault's: the running OS thread's).
/// Without a report channel (checks off) nothing is recorded; the block went on either way.
template <class Fill>
void record_finding(const scheduler_finding& f, dim3 grid, dim3 block, const Fill& fill,
                    const device_state& state = emulated_device_state) {
  if (state.report == nullptr || state.counters == nullptr) return;
  if (!claim_record(state.report, state.counters)) return;
  violation& v = state.report->rec.v;
  v.dim = -1;
  v.device = -1;
  const finding_site site(f.site), other_site(f.other_site);
  copy_tail(v.file, site.get().file);
  copy_text(v.function, site.get().function);
  v.line = site.get().line;
  const unsigned thread[3] = {f.thread.x, f.thread.y, f.thread.z}, other[3] = {f.other.x, f.other.y, f.other.z};
  const unsigned at[3] = {f.block.x, f.block.y, f.block.z}, g[3] = {grid.x, grid.y, grid.z},
                 bl[3] = {block.x, block.y, block.z};
  std::memcpy(v.thread, thread, sizeof thread);
  std::memcpy(v.other_thread, other, sizeof other);
  std::memcpy(v.block, at, sizeof at);
  std::memcpy(v.launch.grid, g, sizeof g);
  std::memcpy(v.launch.block, bl, sizeof bl);
  copy_tail(v.other_site.file, other_site.get().file);
  copy_text(v.other_site.function, other_site.get().function);
  v.other_site.line = other_site.get().line;
  v.launch.id = state.launch_id != nullptr ? *state.launch_id : 0;
  fill(v);
  publish_record(state.report, state.counters);
}

/// Records a finding of the emulated thread `t` (the one running on this OS thread), made by the
/// code at `pc` (its file and line found from it), into `state`'s channel: `fill(v)` the kind's
/// own fields. One thread: the record's other thread is the same one.
template <class Fill>
void record_thread_finding(const platform::emulated_thread& t, const void* pc, const Fill& fill,
                           const device_state& state) {
  unsigned idx[3];
  t.thread_idx(idx);
  const uint3 block{t.block[0], t.block[1], t.block[2]}, thread{idx[0], idx[1], idx[2]};
  record_finding({block, thread, thread, {nullptr, nullptr, 0, pc}, {"", "", 0}}, dim3(t.grid[0], t.grid[1], t.grid[2]),
                 dim3(t.block_dim[0], t.block_dim[1], t.block_dim[2]), fill, state);
}

inline void record_divergent_barrier(const detail::engine::barrier_problem& b, dim3 grid, dim3 block) {
  record_finding({b.block, b.waiting, b.other, b.site, b.other_site}, grid, block, [](violation& v) {
    v.kind = violation_kind::divergent_barrier;
    v.op = operation::barrier;
  });
}

/// threadIdx of thread `t` of a block (numbered x fastest).
inline uint3 thread_of(unsigned t, dim3 block) {
  return uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
}

inline void record_warp_problem(const detail::engine::warp_problem& w, dim3 grid, dim3 block) {
  record_finding({w.block, w.waiting, w.other, w.site, w.other_site}, grid, block, [&](violation& v) {
    v.kind = violation_kind::divergent_barrier;
    v.op = operation::warp_sync;
    v.value = static_cast<std::int64_t>(w.mask);
    v.value_end = static_cast<std::int64_t>(w.kind);
    copy_text(v.label, w.call);
  });
}

inline void record_shared_race(const detail::engine::shared_race& r, dim3 grid, dim3 block) {
  const detail::engine::shared_access& a = r.access;
  record_finding({r.block, thread_of(r.thread, block), thread_of(r.other, block), a.site, r.other_site}, grid, block,
                 [&](violation& v) {
                   v.kind = violation_kind::shared_race;
                   v.op = a.op;
                   v.space = memory_space::shared;
                   copy_text(v.label, a.label);
                   copy_type(v.type, a.type_const, a.type);
                   v.rank = a.rank;
                   v.width = a.width;
                   for (int i = 0; i < a.rank; ++i) {
                     v.index[i] = a.index[i];
                     v.extent[i] = a.extent[i];
                     v.stride[i] = a.stride[i];
                   }
                   v.value = static_cast<std::int64_t>(r.order);
                 });
}

/// Blocks of a cooperative grid that passed this_grid().sync() unequally (grid_sync_problem).
inline void report_grid_sync(const detail::engine::grid_sync_problem& p) {
  std::fprintf(stderr, "cuguard: block (%u,%u,%u) of a cooperative launch returned after %llu this_grid().sync(), another "
               "block passed %llu: a GPU would wait for it forever at the next (emulation let the others go on)\n",
               p.finished.x, p.finished.y, p.finished.z, 1ull * p.syncs, 1ull * p.most);
  emulated_runtime::count_error();
}
/// A launch as its threads see it: `kernel(get<I>(*params)...)` is what each thread runs.
template <class Kernel, class Tuple, std::size_t... I>
struct launch_context {
  Kernel kernel;
  Tuple* params;
  CUGUARD_IMPL_FLATTEN static void thread(void* c) {
    auto* x = static_cast<launch_context*>(c);
    x->kernel(get<I>(*x->params)...);
  }
};

/// The error cudaGetLastError returns, per host thread as in CUDA: set by the runtime API's calls
/// and by a launch CUDA refuses.
inline cudaError_t& last_error() {
  static thread_local cudaError_t e = cudaSuccess;
  return e;
}

/// True if a GPU accepts the grid and block: no dimension 0, at most 1024 threads a block (64 in
/// z), and the grid's y and z at most 65535.
inline bool launchable(dim3 grid, dim3 block) {
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  return threads != 0 && threads <= 1024 && block.z <= 64 && grid.x != 0 && grid.x <= 2147483647u && grid.y != 0 &&
         grid.y <= 65535 && grid.z != 0 && grid.z <= 65535;
}

/// Runs `kernel(get<I>(params)...)` as every thread of the grid. A grid or block a GPU refuses
/// runs nothing and is cudaErrorInvalidConfiguration (which cudaGetLastError then returns, as
/// CUDA's launch sets it). A kernel that traps loses the (emulated) context; one that throws
/// fails with `error` saying why.
template <class Kernel, class Tuple, std::size_t... I>
status launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t, Kernel kernel, Tuple& params,
              text& error, std::index_sequence<I...>) {
  if (!launchable(grid, block)) return last_error() = cudaErrorInvalidConfiguration;
  using context = launch_context<Kernel, Tuple, I...>;
  context ctx{kernel, &params};
  try {
    const detail::engine::grid_findings found =
        run_blocks(grid, block, shared_bytes, detail::engine::grid_runner::body_of<&context::thread>(&ctx));
    if (found.divergent.found) record_divergent_barrier(found.divergent, grid, block);
    if (found.race.found) record_shared_race(found.race, grid, block);
    if (found.warp.found) record_warp_problem(found.warp, grid, block);
    if (found.grid_sync.found) report_grid_sync(found.grid_sync);
  } catch (const detail::engine::trapped&) {
    trapped_context.store(true, std::memory_order_release);
  } catch (const std::exception& ex) {
    error = "failed under emulation: ";
    error << ex.what();
    return 1;
  }
  return 0;
}

} // namespace backend
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
