// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime API that ordinary host code calls, under CUGUARD_EMULATION=1: the same names
// and signatures as libcudart's, so that a program written for nvcc builds unchanged with a host
// compiler (cuguard_emulate(target) in CMake includes this header in every source of the target).
//
// Emulated: memory (cudaMalloc, cudaFree, cudaMallocAsync, cudaFreeAsync, cudaMallocHost,
// cudaHostAlloc, cudaFreeHost, cudaMallocManaged, cudaMemcpy[Async], cudaMemset[Async],
// cudaMemGetInfo), streams (cudaStreamCreate[WithFlags|WithPriority], cudaStreamDestroy,
// cudaStreamSynchronize, cudaStreamQuery, cudaStreamWaitEvent), events (cudaEventCreate[WithFlags],
// cudaEventRecord, cudaEventSynchronize, cudaEventQuery, cudaEventElapsedTime, cudaEventDestroy),
// the device (cudaDeviceSynchronize, cudaDeviceReset, cudaGetDevice, cudaSetDevice,
// cudaGetDeviceCount, cudaGetDeviceProperties, cudaDeviceGetAttribute) and errors
// (cudaGetLastError, cudaPeekAtLastError, cudaGetErrorString, cudaGetErrorName).
//
// Every call runs at once (emulation has one device and no asynchrony): an async copy has
// finished when it returns, a stream is always idle, an event is complete when recorded and
// holds the host time it was recorded at. A bad argument returns the error CUDA returns (and
// sets the error cudaGetLastError reads); nothing crashes. Memory from the allocation calls is
// tracked as device_buffer's is (checks on): a view of it used after cudaFree reports
// use_after_free, a view of device memory read by host code reports wrong_memory_space, and a
// copy or memset that runs past an allocation returns cudaErrorInvalidValue.
#pragma once

#include <cuguard/config.hpp>
#if !CUGUARD_IMPL_EMULATION
#  error "<cuguard/emulated_runtime.hpp> is for CUGUARD_EMULATION=1 builds: an nvcc build links libcudart"
#endif

#include <cuguard/emulation.hpp> // before the toolkit's headers
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/lifetime.hpp>

#include <cuda_runtime.h>

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

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

/// The error cudaGetLastError returns, per host thread as in CUDA.
inline cudaError_t& last_error() {
  static thread_local cudaError_t e = cudaSuccess;
  return e;
}
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

/// Where a tracked allocation was made or released: the call, and the nearest function on the
/// stack that is neither the runtime API nor cuguard's and has a name in the dynamic symbol table
/// (cuguard::emulation links with -rdynamic; functions with internal linkage have none there,
/// such as the toolkit's template overloads of cudaMalloc).
inline cuda::std::source_location call_site(const char* call) {
  void* frames[16];
  const int depth = ::backtrace(frames, 16);
  const char* function = "";
  for (int i = 1; i < depth; ++i) {
    Dl_info info{};
    if (::dladdr(frames[i], &info) == 0 || info.dli_sname == nullptr) continue;
    const text name = backend::readable_name(info.dli_sname);
    if (name.starts_with("cuda") || name.starts_with("cuguard::")) continue;
    function = keep_label(name.c_str());
    break;
  }
  return cuda::std::source_location::current(call, function, 0, 0);
}

/// Allocates `bytes` listed as `space` into `*p` and tracks it.
inline cudaError_t allocate(void** p, std::size_t bytes, memory_space space, const char* call) {
  if (p == nullptr) return result(cudaErrorInvalidValue);
  *p = nullptr;
  if (lost()) return result(cudaErrorLaunchFailure);
  if (backend::allocate_in(p, bytes, space) != 0) return result(cudaErrorMemoryAllocation);
#if CUGUARD_IMPL_CHECKS
  track(*p, bytes, call, space, space == memory_space::pinned ? -1 : 0, call_site(call));
#else
  (void)call;
#endif
  return cudaSuccess;
}

/// Frees the allocation that starts at `p` if `host` says what it is (pinned host memory for
/// cudaFreeHost; device or managed memory for cudaFree); cudaErrorInvalidValue otherwise, as
/// CUDA returns for a pointer it did not allocate, or freed already.
inline cudaError_t free_block(void* p, bool host, const char* call) {
  if (p == nullptr) return cudaSuccess;
  if (lost()) return result(cudaErrorLaunchFailure);
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
  backend::free_in(p, block.space);
  return cudaSuccess;
}

/// True if `bytes` bytes at `p` may be copied or set: inside the listed allocation `p` lies in,
/// or (`must_be_listed` false) not in any listed allocation.
inline bool range_ok(const void* p, std::size_t bytes, bool must_be_listed) {
  if (bytes == 0) return true;
  if (p == nullptr) return false;
  std::uintptr_t begin = 0;
  backend::emulated_block block{};
  if (!backend::find_block(p, begin, block)) return !must_be_listed;
  return reinterpret_cast<std::uintptr_t>(p) - begin <= block.bytes &&
         bytes <= block.bytes - (reinterpret_cast<std::uintptr_t>(p) - begin);
}

inline cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (lost()) return result(cudaErrorLaunchFailure);
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
  return cudaSuccess;
}

inline cudaError_t set(void* p, int value, std::size_t bytes) {
  if (lost()) return result(cudaErrorLaunchFailure);
  if (!range_ok(p, bytes, true)) return result(cudaErrorInvalidValue);
  if (bytes != 0) std::memset(p, value, bytes);
  return cudaSuccess;
}

/// Total and free bytes of the machine's memory, as the device's.
inline void machine_memory(std::size_t& total, std::size_t& available) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), avail = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  total = pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size) : 0;
  available = avail > 0 && size > 0 ? static_cast<std::size_t>(avail) * static_cast<std::size_t>(size) : 0;
}

/// The emulated device, as cudaGetDeviceProperties describes it.
inline void describe_device(cudaDeviceProp& p) {
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "cuguard emulation (CPU threads)");
  std::size_t available = 0;
  machine_memory(p.totalGlobalMem, available);
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerBlockOptin = 227 * 1024;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 * 1024;
  p.major = 9;
  p.minor = 0;
  const unsigned cores = std::thread::hardware_concurrency();
  p.multiProcessorCount = cores == 0 ? 1 : static_cast<int>(cores);
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  p.unifiedAddressing = 1;
  p.managedMemory = 1;
  p.concurrentManagedAccess = 1;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

// ---------------------------------------------------------------------------------------------
// The API, with libcudart's C linkage and signatures (default arguments come from the toolkit's
// declarations).
// ---------------------------------------------------------------------------------------------
#define CUGUARD_IMPL_ER ::cuguard::detail::emulated_runtime

extern "C" {

// Errors.
inline cudaError_t cudaGetLastError(void) {
  const cudaError_t e = CUGUARD_IMPL_ER::last_error();
  CUGUARD_IMPL_ER::last_error() = CUGUARD_IMPL_ER::lost() ? cudaErrorLaunchFailure : cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError(void) { return CUGUARD_IMPL_ER::last_error(); }
inline const char* cudaGetErrorString(cudaError_t error) { return ::cuguard::detail::backend::error_string(error); }
inline const char* cudaGetErrorName(cudaError_t error) { return ::cuguard::detail::backend::error_name(error); }

// Memory.
inline cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return CUGUARD_IMPL_ER::allocate(devPtr, size, ::cuguard::memory_space::device, "cudaMalloc");
}
inline cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  if (!CUGUARD_IMPL_ER::valid_stream(hStream)) return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return CUGUARD_IMPL_ER::allocate(devPtr, size, ::cuguard::memory_space::device, "cudaMallocAsync");
}
inline cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  return CUGUARD_IMPL_ER::allocate(devPtr, size, ::cuguard::memory_space::managed, "cudaMallocManaged");
}
inline cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return CUGUARD_IMPL_ER::allocate(ptr, size, ::cuguard::memory_space::pinned, "cudaMallocHost");
}
inline cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int) {
  return CUGUARD_IMPL_ER::allocate(pHost, size, ::cuguard::memory_space::pinned, "cudaHostAlloc");
}
inline cudaError_t cudaFree(void* devPtr) {
  return CUGUARD_IMPL_ER::free_block(devPtr, false, "cudaFree");
}
inline cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  if (!CUGUARD_IMPL_ER::valid_stream(hStream)) return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return CUGUARD_IMPL_ER::free_block(devPtr, false, "cudaFreeAsync");
}
inline cudaError_t cudaFreeHost(void* ptr) {
  return CUGUARD_IMPL_ER::free_block(ptr, true, "cudaFreeHost");
}
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return CUGUARD_IMPL_ER::copy(dst, src, count, kind);
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream)) return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return CUGUARD_IMPL_ER::copy(dst, src, count, kind);
}
inline cudaError_t cudaMemset(void* devPtr, int value, size_t count) { return CUGUARD_IMPL_ER::set(devPtr, value, count); }
inline cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream)) return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return CUGUARD_IMPL_ER::set(devPtr, value, count);
}
inline cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  CUGUARD_IMPL_ER::machine_memory(*total, *free);
  return cudaSuccess;
}

// Streams.
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  if (pStream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking))
    return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  if (CUGUARD_IMPL_ER::lost()) return CUGUARD_IMPL_ER::result(cudaErrorLaunchFailure);
  *pStream = new CUstream_st{flags, priority};
  CUGUARD_IMPL_ER::remember(*pStream);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return cudaStreamCreateWithPriority(pStream, flags, 0);
}
inline cudaError_t cudaStreamCreate(cudaStream_t* pStream) { return cudaStreamCreateWithPriority(pStream, 0, 0); }
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) { return CUGUARD_IMPL_ER::destroy(stream); }
inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream)) return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::result(cudaErrorLaunchFailure) : cudaSuccess;
}
inline cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream) || !CUGUARD_IMPL_ER::is_live(event))
    return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

// Events.
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  constexpr unsigned known = static_cast<unsigned>(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess);
  if (event == nullptr || (flags & ~known) != 0)
    return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  if (CUGUARD_IMPL_ER::lost()) return CUGUARD_IMPL_ER::result(cudaErrorLaunchFailure);
  *event = new CUevent_st{flags, false, {}};
  CUGUARD_IMPL_ER::remember(*event);
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
inline cudaError_t cudaEventDestroy(cudaEvent_t event) { return CUGUARD_IMPL_ER::destroy(event); }
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::is_live(event) || !CUGUARD_IMPL_ER::valid_stream(stream))
    return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  if (CUGUARD_IMPL_ER::lost()) return CUGUARD_IMPL_ER::result(cudaErrorLaunchFailure);
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!CUGUARD_IMPL_ER::is_live(event)) return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  return CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::result(cudaErrorLaunchFailure) : cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_ER::is_live(start) || !CUGUARD_IMPL_ER::is_live(end))
    return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  // As CUDA: an event never recorded, or one made with cudaEventDisableTiming, has no time.
  if (!start->recorded || !end->recorded || ((start->flags | end->flags) & cudaEventDisableTiming) != 0)
    return CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

// The device.
inline cudaError_t cudaDeviceSynchronize(void) {
  return CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::result(cudaErrorLaunchFailure) : cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : CUGUARD_IMPL_ER::result(cudaErrorInvalidDevice);
}
inline cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  if (device != 0) return CUGUARD_IMPL_ER::result(cudaErrorInvalidDevice);
  CUGUARD_IMPL_ER::describe_device(*prop);
  return cudaSuccess;
}
/// The attributes of cudaGetDeviceProperties' fields; any other is cudaErrorNotSupported.
inline cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (value == nullptr) return CUGUARD_IMPL_ER::result(cudaErrorInvalidValue);
  if (device != 0) return CUGUARD_IMPL_ER::result(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  CUGUARD_IMPL_ER::describe_device(p);
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
  case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
  case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
  case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
  case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
  case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
  case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); break;
  case cudaDevAttrWarpSize: *value = p.warpSize; break;
  case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
  case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
  case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
  case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
  case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
  case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
  case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
  default: return CUGUARD_IMPL_ER::result(cudaErrorNotSupported);
  }
  return cudaSuccess;
}
/// Ends the (emulated) context lost to a trapped kernel, as a reset ends a GPU's; memory and
/// handles stay as they are.
inline cudaError_t cudaDeviceReset(void) {
  ::cuguard::detail::backend::trapped_context.store(false, std::memory_order_release);
  CUGUARD_IMPL_ER::last_error() = cudaSuccess;
  return cudaSuccess;
}

} // extern "C"

#undef CUGUARD_IMPL_ER
