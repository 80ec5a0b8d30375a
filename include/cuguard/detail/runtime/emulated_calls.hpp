// SPDX-License-Identifier: Apache-2.0
// What the emulated CUDA runtime API (<cuguard/emulated_runtime.hpp>) does behind its calls: the
// streams and events behind the handles, the last error, allocations tracked as device_buffer's
// are, copies and memsets checked against them, and the emulated device's properties.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/emulation.hpp> // before the toolkit's headers
#include <cuguard/check.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/emulated_device.hpp>
#include <cuguard/detail/runtime/error_exit.hpp>
#include <cuguard/detail/runtime/leak_check.hpp>
#if defined(CUGUARD_IMPL_ACCESS_HOOKS) && CUGUARD_IMPL_ACCESS_HOOKS
#  include <cuguard/detail/runtime/init_check.hpp>
#  define CUGUARD_IMPL_INITCHECK 1 // a sanitized build sees every access: initcheck can be on
#else
#  define CUGUARD_IMPL_INITCHECK 0
#endif
#include <cuguard/lifetime.hpp>
// A sanitized build's allocations are live memory (live_memory.hpp), against which the access
// hooks check kernels' accesses: a sanitized extension's, and cuguard_emulate(... SANITIZE)'s.
#if CUGUARD_IMPL_SANITIZE_STORAGES || (CUGUARD_IMPL_INITCHECK && CUGUARD_IMPL_ASAN_RUNTIME)
#  include <cuguard/detail/runtime/live_memory.hpp>
#  define CUGUARD_IMPL_LIVE_ALLOCATIONS 1
#else
#  define CUGUARD_IMPL_LIVE_ALLOCATIONS 0
#endif

#include <cuda_runtime.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>

/// An emulated stream: streams run nothing asynchronously under emulation, so a stream is its
/// flags and priority.
struct CUstream_st {
  unsigned flags;
  int priority;
};
/// An emulated event: when it was last recorded, on the host's clock.
struct CUevent_st {
  unsigned flags;
  bool recorded;
  std::chrono::steady_clock::time_point when;
};

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// The live streams and events (a destroyed or never-created handle is cudaErrorInvalidResourceHandle).
struct handles {
  std::mutex mutex;
  std::set<const void*> live;
};
inline handles& live_handles() {
  static handles* const h = new handles; // never destroyed: handles may be released late
  return *h;
}
inline bool is_live(const void* handle) {
  std::lock_guard<std::mutex> lock(live_handles().mutex);
  return live_handles().live.count(handle) != 0;
}
inline void remember(const void* handle) {
  std::lock_guard<std::mutex> lock(live_handles().mutex);
  live_handles().live.insert(handle);
}
/// The default stream's handles (0, cudaStreamLegacy, cudaStreamPerThread), and live streams.
inline bool valid_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread || is_live(s);
}

/// The error cudaGetLastError returns, per host thread as in CUDA (a refused launch sets it too).
inline cudaError_t& last_error() { return backend::last_error(); }
/// Returns `e`, remembering it for cudaGetLastError when it is an error.
inline cudaError_t result(cudaError_t e) {
  if (e != cudaSuccess) last_error() = e;
  return e;
}
/// Deletes a live stream or event; cudaErrorInvalidResourceHandle if `handle` is not one.
template <class Handle>
cudaError_t destroy(Handle* handle) {
  {
    std::lock_guard<std::mutex> lock(live_handles().mutex);
    if (handle == nullptr || live_handles().live.erase(handle) == 0) return result(cudaErrorInvalidResourceHandle);
  }
  delete handle;
  return cudaSuccess;
}

/// A kernel trapped: as on a GPU, the context is lost and every later call fails.
inline bool lost() { return backend::context_lost(); }
/// What the calls return then: cudaErrorAssert after a failed device assert(), else
/// cudaErrorLaunchFailure.
inline cudaError_t lost_error() { return backend::lost_context_error(); }

/// Where a tracked allocation was made or released: the call, and the nearest function on the
/// stack that is neither the runtime API nor cuguard's and has a name in the dynamic symbol table
/// (cuguard::emulation links with -rdynamic; functions with internal linkage have none there,
/// such as the toolkit's template overloads of cudaMalloc). A frame's return address is looked up
/// one byte back, in its call: a call that ends its function returns past the function's end
/// (into the next function, or none). None (an empty name) where the walk reaches the C
/// library's start of the program first: the caller's frame is gone (a call in tail position).
inline cuda::std::source_location call_site(const char* call) {
  void* frames[16];
  const int depth = ::backtrace(frames, 16);
  const char* function = "";
  for (int i = 1; i < depth; ++i) {
    Dl_info info{};
    if (::dladdr(static_cast<char*>(frames[i]) - 1, &info) == 0 || info.dli_sname == nullptr) continue;
    const text name = backend::readable_name(info.dli_sname);
    if (name.starts_with("__libc_start") || std::strcmp(name.c_str(), "_start") == 0) break;
    if (name.starts_with("cuda") || name.starts_with("cuguard::")) continue;
    function = keep_label(name.c_str());
    break;
  }
  return cuda::std::source_location::current(call, function, 0, 0);
}

/// CUGUARD_EMULATION_API_ERRORS, read once (sanitizing_setting: on under ASan).
inline bool api_errors_on() {
  static const bool on = sanitizing_setting(platform::setting::emulation_api_errors);
  return on;
}

/// What runtime API call `call` returns: `e`, printed with the call's caller where it is an error
/// and API errors are reported (compute-sanitizer's "Program hit cudaErrorInvalidValue on CUDA API
/// call to cudaMemcpy").
inline cudaError_t returned(const char* call, cudaError_t e) {
  if (e != cudaSuccess && api_errors_on()) {
    text line = call;
    append_function(line, call_site(call).function_name());
    std::fprintf(stderr, "cuguard: %s returned %s (%s)\n", line.c_str(), backend::error_name(e), backend::error_string(e));
    count_error();
  }
  return e;
}

/// A synchronizing call (`call`: cudaDeviceSynchronize, cudaStreamSynchronize,
/// cudaEventSynchronize, cudaMemcpy, cudaMemset): a report a kernel recorded that no check() has
/// read is printed (the next check() still throws it), so that a program written for nvcc, which
/// never calls check(), loses none.
inline void synchronizing(const char* call) {
  if (!report_recorded()) return;
  text when = "found at ";
  when << call;
  append_function(when, call_site(call).function_name());
  when << ", the first synchronizing call after the kernel";
  print_unread_report(when.c_str());
}

/// Allocates `bytes` listed as `space` into `*p` and tracks it.
inline cudaError_t allocate(void** p, std::size_t bytes, memory_space space, const char* call) {
  if (p == nullptr) return result(cudaErrorInvalidValue);
  *p = nullptr;
  if (lost()) return result(lost_error());
  // (the runtime API's blocks are the live memory a sanitized build checks kernels against)
  if (backend::allocate_in(p, bytes, space, CUGUARD_IMPL_LIVE_ALLOCATIONS != 0) != 0) return result(cudaErrorMemoryAllocation);
  const bool listing = leakcheck_on();
#if CUGUARD_IMPL_INITCHECK
  const bool shadowing = space == memory_space::device && initcheck_on();
#else
  constexpr bool shadowing = false;
#endif
  const cuda::std::source_location site =
      CUGUARD_IMPL_CHECKS || listing || shadowing ? call_site(call) : cuda::std::source_location{};
  bool guarded = false;
  {
    std::lock_guard<std::mutex> lock(backend::memory().mutex);
    backend::emulated_block& b = backend::memory().blocks[reinterpret_cast<std::uintptr_t>(*p)];
    b.call = call;
    b.function = site.function_name();
    guarded = b.guarded;
  }
  if (listing) list_leaks_at_exit();
#if CUGUARD_IMPL_INITCHECK
  if (shadowing) shadow_allocation(*p, bytes, call, site.function_name());
#endif
#if CUGUARD_IMPL_CHECKS
  track(*p, bytes, call, space, space == memory_space::pinned ? -1 : 0, site);
#endif
#if CUGUARD_IMPL_LIVE_ALLOCATIONS
  // (past it, the rest of its last page in the guarded arena, or the allocator's chunk header)
  if (guarded) live().guard(guarded_arena::get()->begin(), guarded_arena::get()->end());
  const std::size_t n = bytes == 0 ? 1 : bytes;
  text what = space == memory_space::pinned ? "pinned host memory allocated by " : "device memory allocated by ";
  what << call;
  if (*site.function_name() != '\0') what << " in " << site.function_name();
  live().add(reinterpret_cast<std::uintptr_t>(*p), bytes, guarded ? page_bytes(n) - bytes : 8,
             kept_text(static_cast<text&&>(what)));
#else
  (void)guarded;
#endif
  return cudaSuccess;
}

/// Frees the allocation that starts at `p` if `host` says what it is (pinned host memory for
/// cudaFreeHost; device or managed memory for cudaFree); cudaErrorInvalidValue otherwise, as
/// CUDA returns for a pointer it did not allocate, or freed already.
inline cudaError_t free_block(void* p, bool host, const char* call) {
  if (p == nullptr) return cudaSuccess;
  if (lost()) return result(lost_error());
  std::uintptr_t begin = 0;
  backend::emulated_block block{};
  if (!backend::find_block(p, begin, block) || begin != reinterpret_cast<std::uintptr_t>(p) ||
      (block.space == memory_space::pinned) != host)
    return result(cudaErrorInvalidValue);
#if CUGUARD_IMPL_CHECKS
  registry().release_live(p, call_site(call));
#else
  (void)call;
#endif
#if CUGUARD_IMPL_INITCHECK
  if (block.space == memory_space::device && initcheck_on()) {
    text when = call;
    append_function(when, call_site(call).function_name());
    drop_shadow(p, when.c_str());
  }
#endif
#if CUGUARD_IMPL_LIVE_ALLOCATIONS
  // (a guarded block's addresses are held back from reuse: a later access is a use after free)
  live().remove(reinterpret_cast<std::uintptr_t>(p), block.guarded);
#endif
  backend::free_in(p, block.space);
  return cudaSuccess;
}

/// True where host memory the runtime did not allocate is device memory to copies and memsets,
/// and cudaSetDevice(-1) names the device: under cuguard::torch, whose CPU tensors (their
/// get_device() -1) are the emulated device's memory (set by detail/adapters/torch_cuda_host.hpp).
inline std::atomic<bool> unlisted_memory_is_device{false};

/// True if `bytes` bytes at `p` may be copied or set: inside the listed allocation `p` lies in,
/// or (`must_be_listed` false, or unlisted memory taken as device memory) not in any listed
/// allocation.
inline bool range_ok(const void* p, std::size_t bytes, bool must_be_listed) {
  if (bytes == 0) return true;
  if (p == nullptr) return false;
  std::uintptr_t begin = 0;
  backend::emulated_block block{};
  if (!backend::find_block(p, begin, block))
    return !must_be_listed || unlisted_memory_is_device.load(std::memory_order_relaxed);
  return reinterpret_cast<std::uintptr_t>(p) - begin <= block.bytes &&
         bytes <= block.bytes - (reinterpret_cast<std::uintptr_t>(p) - begin);
}

inline cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (lost()) return result(lost_error());
  bool dst_device = false, src_device = false;
  switch (kind) {
  case cudaMemcpyHostToHost: break;
  case cudaMemcpyHostToDevice: dst_device = true; break;
  case cudaMemcpyDeviceToHost: src_device = true; break;
  case cudaMemcpyDeviceToDevice: dst_device = src_device = true; break;
  case cudaMemcpyDefault: break;
  default: return result(cudaErrorInvalidMemcpyDirection);
  }
  if (!range_ok(dst, bytes, dst_device) || !range_ok(src, bytes, src_device)) return result(cudaErrorInvalidValue);
  if (bytes != 0) std::memmove(dst, src, bytes);
#if CUGUARD_IMPL_INITCHECK
  if (initcheck_on()) shadow_written(dst, bytes);
#endif
  return cudaSuccess;
}

inline cudaError_t set(void* p, int value, std::size_t bytes) {
  if (lost()) return result(lost_error());
  if (!range_ok(p, bytes, true)) return result(cudaErrorInvalidValue);
  if (bytes != 0) std::memset(p, value, bytes);
#if CUGUARD_IMPL_INITCHECK
  if (initcheck_on()) shadow_written(p, bytes);
#endif
  return cudaSuccess;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
