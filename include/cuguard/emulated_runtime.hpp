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
//
// A program written for nvcc never calls cuguard::check(): a report its kernels left (a
// violation through a view, or what the scheduler finds: a divergent barrier, a warp-synchronous
// call outside its mask, a race) is printed to stderr at the first synchronizing call after the
// kernel (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaMemcpy,
// cudaMemset), as compute-sanitizer prints what it finds, and one no call read at exit; the next
// check() still throws it. The calls' own results are CUDA's.
#pragma once

#include <cuguard/config.hpp>
#if !CUGUARD_IMPL_EMULATION
#  error "<cuguard/emulated_runtime.hpp> is for CUGUARD_EMULATION=1 builds: an nvcc build links libcudart"
#endif

#include <cuguard/emulation.hpp> // before the toolkit's headers
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_assert.hpp> // IWYU pragma: export (assert() in kernels)
#include <cuguard/detail/runtime/emulated_calls.hpp>
// A sanitized build's raw accesses to shared memory reach the race detector
// (cuguard_emulate(... SANITIZE)); elsewhere a `__shared__` variable is not listed.
#if defined(CUGUARD_IMPL_ACCESS_HOOKS) && CUGUARD_IMPL_ACCESS_HOOKS
#  include <cuguard/detail/runtime/access_hooks.hpp> // IWYU pragma: export
#else
#  define CUGUARD_IMPL_SHARED_NAME(name) name
#  define CUGUARD_IMPL_SHARED_VARIABLE(name)
#endif

#include <cuda_runtime.h>

#include <cuguard/detail/runtime/emulated_pool_calls.hpp> // IWYU pragma: export (memory pools; after the toolkit's)

#include <cstddef>


// ---------------------------------------------------------------------------------------------
// The API, with libcudart's C linkage and signatures (default arguments come from the toolkit's
// declarations).
// ---------------------------------------------------------------------------------------------
#define CUGUARD_IMPL_ER ::cuguard::detail::emulated_runtime
// What a call returns, printed with its caller where it is an error (CUGUARD_EMULATION_API_ERRORS).
#define CUGUARD_IMPL_RETURN(e) return CUGUARD_IMPL_ER::returned(__func__, e)

// Hidden: each module (an extension's .so) calls its own definitions, not libcudart's where a
// CUDA build of Torch has loaded it into the process's global scope (a call would reach the
// real runtime, which sees no device).
#pragma GCC visibility push(hidden)
extern "C" {

// Errors.
inline cudaError_t cudaGetLastError(void) {
  const cudaError_t e = CUGUARD_IMPL_ER::last_error();
  CUGUARD_IMPL_ER::last_error() = CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::lost_error() : cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError(void) { return CUGUARD_IMPL_ER::last_error(); }
inline const char* cudaGetErrorString(cudaError_t error) { return ::cuguard::detail::backend::error_string(error); }
inline const char* cudaGetErrorName(cudaError_t error) { return ::cuguard::detail::backend::error_name(error); }

// Memory.
inline cudaError_t cudaMalloc(void** devPtr, size_t size) {
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::allocate(devPtr, size, ::cuguard::memory_space::device, "cudaMalloc"));
}
inline cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::allocate_from_pool(devPtr, size, nullptr, hStream, "cudaMallocAsync"));
}
inline cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::allocate(devPtr, size, ::cuguard::memory_space::managed, "cudaMallocManaged"));
}
inline cudaError_t cudaMallocHost(void** ptr, size_t size) {
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::allocate(ptr, size, ::cuguard::memory_space::pinned, "cudaMallocHost"));
}
inline cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int) {
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::allocate(pHost, size, ::cuguard::memory_space::pinned, "cudaHostAlloc"));
}
inline cudaError_t cudaFree(void* devPtr) {
  const cudaError_t e = CUGUARD_IMPL_ER::free_block(devPtr, false, "cudaFree");
  if (e == cudaSuccess) CUGUARD_IMPL_ER::returned_to_pool(devPtr);
  CUGUARD_IMPL_RETURN(e);
}
inline cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  if (!CUGUARD_IMPL_ER::valid_stream(hStream)) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  const cudaError_t e = CUGUARD_IMPL_ER::free_block(devPtr, false, "cudaFreeAsync");
  if (e == cudaSuccess) CUGUARD_IMPL_ER::returned_to_pool(devPtr);
  CUGUARD_IMPL_RETURN(e);
}
inline cudaError_t cudaFreeHost(void* ptr) {
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::free_block(ptr, true, "cudaFreeHost"));
}
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  CUGUARD_IMPL_ER::synchronizing("cudaMemcpy");
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::copy(dst, src, count, kind));
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream)) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::copy(dst, src, count, kind));
}
inline cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  CUGUARD_IMPL_ER::synchronizing("cudaMemset");
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::set(devPtr, value, count));
}
inline cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream)) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::set(devPtr, value, count));
}
inline cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  CUGUARD_IMPL_ER::machine_memory(*total, *free);
  CUGUARD_IMPL_RETURN(cudaSuccess);
}

// Streams.
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  if (pStream == nullptr || (flags != cudaStreamDefault && flags != cudaStreamNonBlocking))
    CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  if (CUGUARD_IMPL_ER::lost()) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(CUGUARD_IMPL_ER::lost_error()));
  *pStream = new CUstream_st{flags, priority};
  CUGUARD_IMPL_ER::remember(*pStream);
  CUGUARD_IMPL_RETURN(cudaSuccess);
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return cudaStreamCreateWithPriority(pStream, flags, 0); // reported by the call it forwards to
}
inline cudaError_t cudaStreamCreate(cudaStream_t* pStream) { return cudaStreamCreateWithPriority(pStream, 0, 0); } // reported by the call it forwards to
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) { CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::destroy(stream)); }
inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream)) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  CUGUARD_IMPL_ER::synchronizing("cudaStreamSynchronize");
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::result(CUGUARD_IMPL_ER::lost_error()) : cudaSuccess);
}
inline cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); } // reported by the call it forwards to
inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  if (!CUGUARD_IMPL_ER::valid_stream(stream) || !CUGUARD_IMPL_ER::is_live(event))
    CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  CUGUARD_IMPL_RETURN(cudaSuccess);
}

// Events.
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  constexpr unsigned known = static_cast<unsigned>(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess);
  if (event == nullptr || (flags & ~known) != 0)
    CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  if (CUGUARD_IMPL_ER::lost()) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(CUGUARD_IMPL_ER::lost_error()));
  *event = new CUevent_st{flags, false, {}};
  CUGUARD_IMPL_ER::remember(*event);
  CUGUARD_IMPL_RETURN(cudaSuccess);
}
inline cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); } // reported by the call it forwards to
inline cudaError_t cudaEventDestroy(cudaEvent_t event) { CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::destroy(event)); }
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!CUGUARD_IMPL_ER::is_live(event) || !CUGUARD_IMPL_ER::valid_stream(stream))
    CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  if (CUGUARD_IMPL_ER::lost()) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(CUGUARD_IMPL_ER::lost_error()));
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  CUGUARD_IMPL_RETURN(cudaSuccess);
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!CUGUARD_IMPL_ER::is_live(event)) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  CUGUARD_IMPL_ER::synchronizing("cudaEventSynchronize");
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::result(CUGUARD_IMPL_ER::lost_error()) : cudaSuccess);
}
inline cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); } // reported by the call it forwards to
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  if (!CUGUARD_IMPL_ER::is_live(start) || !CUGUARD_IMPL_ER::is_live(end))
    CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  // As CUDA: an event never recorded, or one made with cudaEventDisableTiming, has no time.
  if (!start->recorded || !end->recorded || ((start->flags | end->flags) & cudaEventDisableTiming) != 0)
    CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidResourceHandle));
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  CUGUARD_IMPL_RETURN(cudaSuccess);
}

// The device.
inline cudaError_t cudaDeviceSynchronize(void) {
  CUGUARD_IMPL_ER::synchronizing("cudaDeviceSynchronize");
  CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::lost() ? CUGUARD_IMPL_ER::result(CUGUARD_IMPL_ER::lost_error()) : cudaSuccess);
}
inline cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  *count = 1;
  CUGUARD_IMPL_RETURN(cudaSuccess);
}
inline cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  *device = 0;
  CUGUARD_IMPL_RETURN(cudaSuccess);
}
inline cudaError_t cudaSetDevice(int device) {
  // (under cuguard::torch, a CPU tensor's get_device(), -1, names the emulated device: its memory)
  const bool tensor_device = device == -1 && CUGUARD_IMPL_ER::unlisted_memory_is_device.load(std::memory_order_relaxed);
  CUGUARD_IMPL_RETURN(device == 0 || tensor_device ? cudaSuccess : CUGUARD_IMPL_ER::result(cudaErrorInvalidDevice));
}
inline cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  if (device != 0) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidDevice));
  CUGUARD_IMPL_ER::describe_device(*prop);
  CUGUARD_IMPL_RETURN(cudaSuccess);
}
/// Every attribute CUDA defines, for the emulated H100 (detail/runtime/emulated_device.hpp).
inline cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (value == nullptr) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidValue));
  if (device != 0) CUGUARD_IMPL_RETURN(CUGUARD_IMPL_ER::result(cudaErrorInvalidDevice));
  cudaDeviceProp p;
  CUGUARD_IMPL_ER::describe_device(p);
  const cudaError_t e = CUGUARD_IMPL_ER::device_attribute(p, attr, *value);
  CUGUARD_IMPL_RETURN(e == cudaSuccess ? e : CUGUARD_IMPL_ER::result(e));
}
/// Ends the (emulated) context lost to a trapped kernel, as a reset ends a GPU's; memory and
/// handles stay as they are.
inline cudaError_t cudaDeviceReset(void) {
  if (CUGUARD_IMPL_ER::leakcheck_on()) {
    ::cuguard::detail::text when = "cudaDeviceReset";
    ::cuguard::detail::append_function(when, CUGUARD_IMPL_ER::call_site("cudaDeviceReset").function_name());
    (void)CUGUARD_IMPL_ER::list_leaks(when.c_str());
  }
  ::cuguard::detail::backend::trapped_context.store(false, std::memory_order_release);
  ::cuguard::detail::backend::assert_trapped.store(false, std::memory_order_release);
  CUGUARD_IMPL_ER::last_error() = cudaSuccess;
  CUGUARD_IMPL_RETURN(cudaSuccess);
}

} // extern "C"
#pragma GCC visibility pop

#include <cuguard/detail/runtime/emulated_device_calls.hpp> // IWYU pragma: export

/// cudaLaunchKernelEx(config, kernel, args...) of a kernel given as its function, with the
/// caller's position: the launch the toolkit's template makes through cudaLaunchKernelExC, for
/// any kernel (not only those a translated file registers; CUB's device-wide algorithms launch
/// theirs so). After <cuda_runtime.h>, whose own template it takes the place of.
#define cudaLaunchKernelEx(...) \
  ::cuguard::detail::launch_kernel_ex(::cuguard::detail::chevron_site(__PRETTY_FUNCTION__), __VA_ARGS__)
#include <cuguard/detail/runtime/emulated_memory_calls.hpp> // IWYU pragma: export
#include <cuguard/detail/runtime/emulated_texture_calls.hpp> // IWYU pragma: export

#undef CUGUARD_IMPL_RETURN
#undef CUGUARD_IMPL_ER
