// SPDX-License-Identifier: Apache-2.0
// More of the CUDA runtime API under emulation (<cuguard/emulated_runtime.hpp> includes this;
// the list is in detail/runtime/emulated_device_calls.hpp): streams' attributes, priorities,
// flags, callbacks and host functions; registered host memory; symbols; pitched memory.
#pragma once

#include <cuguard/detail/runtime/emulated_calls.hpp>
#include <cuguard/detail/runtime/emulated_device.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#define CUGUARD_IMPL_EMC ::cuguard::detail::emulated_runtime
#define CUGUARD_IMPL_EMC_RETURN(e) return CUGUARD_IMPL_EMC::returned(__func__, e)
#define CUGUARD_IMPL_EMC_FAIL(e) CUGUARD_IMPL_EMC_RETURN(CUGUARD_IMPL_EMC::result(e))

// (hidden: see emulated_runtime.hpp)
#pragma GCC visibility push(hidden)
extern "C" {

// Streams.
inline cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  if (priority == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_EMC::valid_stream(hStream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  *priority = CUGUARD_IMPL_EMC::is_live(hStream) ? hStream->priority : 0;
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  if (flags == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_EMC::valid_stream(hStream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  *flags = CUGUARD_IMPL_EMC::is_live(hStream) ? hStream->flags : 0;
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value) {
  if (value == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  if (attr == cudaStreamAttributeAccessPolicyWindow) {
    cudaDeviceProp p;
    CUGUARD_IMPL_EMC::describe_device(p);
    const cudaAccessPolicyWindow& w = value->accessPolicyWindow;
    if (w.num_bytes > static_cast<size_t>(p.accessPolicyMaxWindowSize) || !(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f))
      CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  }
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EMC::settings().mutex);
  CUGUARD_IMPL_EMC::settings().stream_attributes[{stream, static_cast<int>(attr)}] = *value;
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value) {
  if (value == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  std::memset(static_cast<void*>(value), 0, sizeof *value);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EMC::settings().mutex);
  const auto it = CUGUARD_IMPL_EMC::settings().stream_attributes.find({stream, static_cast<int>(attr)});
  if (it != CUGUARD_IMPL_EMC::settings().stream_attributes.end()) *value = it->second;
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
/// Runs the callback now: the work before it on the stream has finished (every call runs at once).
inline cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                         unsigned int flags) {
  if (callback == nullptr || flags != 0) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  CUGUARD_IMPL_EMC::synchronizing("cudaStreamAddCallback");
  callback(stream, CUGUARD_IMPL_EMC::lost() ? CUGUARD_IMPL_EMC::lost_error() : cudaSuccess, userData);
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (fn == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  if (CUGUARD_IMPL_EMC::lost()) CUGUARD_IMPL_EMC_FAIL(CUGUARD_IMPL_EMC::lost_error());
  CUGUARD_IMPL_EMC::synchronizing("cudaLaunchHostFunc");
  fn(userData);
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}

// Host memory: one address space, so a registered (or pinned) host address is the device's.
inline cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (ptr == nullptr || size == 0 || (flags & ~0x0fu) != 0) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  std::uintptr_t begin = 0;
  unsigned held = 0;
  const auto a = reinterpret_cast<std::uintptr_t>(ptr);
  if (CUGUARD_IMPL_EMC::registered_range(ptr, begin, held) ||
      CUGUARD_IMPL_EMC::registered_range(reinterpret_cast<const void*>(a + size - 1), begin, held))
    CUGUARD_IMPL_EMC_FAIL(cudaErrorHostMemoryAlreadyRegistered);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EMC::settings().mutex);
  CUGUARD_IMPL_EMC::settings().registered[a] = {size, flags};
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaHostUnregister(void* ptr) {
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EMC::settings().mutex);
  if (CUGUARD_IMPL_EMC::settings().registered.erase(reinterpret_cast<std::uintptr_t>(ptr)) == 0)
    CUGUARD_IMPL_EMC_FAIL(cudaErrorHostMemoryNotRegistered);
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  if (pFlags == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  std::uintptr_t begin = 0;
  ::cuguard::detail::backend::emulated_block block{};
  if (CUGUARD_IMPL_EMC::registered_range(pHost, begin, *pFlags)) CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
  if (!::cuguard::detail::backend::find_block(pHost, begin, block) || block.space != ::cuguard::memory_space::pinned)
    CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  *pFlags = cudaHostAllocMapped;
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  unsigned held = 0;
  if (pDevice == nullptr || flags != 0 || cudaHostGetFlags(&held, pHost) != cudaSuccess)
    CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  *pDevice = pHost;
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}

// Symbols: a __device__ or __constant__ variable is an ordinary one under emulation.
inline cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind) {
  if (symbol == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidSymbol);
  if (kind == cudaMemcpyHostToHost || kind == cudaMemcpyDeviceToHost) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidMemcpyDirection);
  CUGUARD_IMPL_EMC::synchronizing("cudaMemcpyToSymbol");
  CUGUARD_IMPL_EMC_RETURN(CUGUARD_IMPL_EMC::copy(static_cast<char*>(const_cast<void*>(symbol)) + offset, src, count,
                                                 cudaMemcpyDefault));
}
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                        enum cudaMemcpyKind kind) {
  if (symbol == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidSymbol);
  if (kind == cudaMemcpyHostToHost || kind == cudaMemcpyHostToDevice) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidMemcpyDirection);
  CUGUARD_IMPL_EMC::synchronizing("cudaMemcpyFromSymbol");
  CUGUARD_IMPL_EMC_RETURN(CUGUARD_IMPL_EMC::copy(dst, static_cast<const char*>(symbol) + offset, count, cudaMemcpyDefault));
}
inline cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream) {
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind); // reported by the call it forwards to
}
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                             enum cudaMemcpyKind kind, cudaStream_t stream) {
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind); // reported by the call it forwards to
}
inline cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  if (devPtr == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  if (symbol == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidSymbol);
  *devPtr = const_cast<void*>(symbol);
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}

// Pitched memory: rows of `width` bytes, each starting a multiple of 512 bytes (the H100's
// texture alignment) after the first.
inline cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  CUGUARD_IMPL_EMC_RETURN(CUGUARD_IMPL_EMC::allocate(devPtr, *pitch * height, ::cuguard::memory_space::device,
                                                     "cudaMallocPitch"));
}
inline cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidPitchValue);
  CUGUARD_IMPL_EMC::synchronizing("cudaMemcpy2D");
  for (size_t row = 0; row < height; ++row) {
    const cudaError_t e = CUGUARD_IMPL_EMC::copy(static_cast<char*>(dst) + row * dpitch,
                                                 static_cast<const char*>(src) + row * spitch, width, kind);
    if (e != cudaSuccess) CUGUARD_IMPL_EMC_RETURN(e);
  }
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}
inline cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  if (!CUGUARD_IMPL_EMC::valid_stream(stream)) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidResourceHandle);
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind); // reported by the call it forwards to
}
inline cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  if (width > pitch) CUGUARD_IMPL_EMC_FAIL(cudaErrorInvalidPitchValue);
  CUGUARD_IMPL_EMC::synchronizing("cudaMemset2D");
  for (size_t row = 0; row < height; ++row) {
    const cudaError_t e = CUGUARD_IMPL_EMC::set(static_cast<char*>(devPtr) + row * pitch, value, width);
    if (e != cudaSuccess) CUGUARD_IMPL_EMC_RETURN(e);
  }
  CUGUARD_IMPL_EMC_RETURN(cudaSuccess);
}

} // extern "C"
#pragma GCC visibility pop

#undef CUGUARD_IMPL_EMC_FAIL
#undef CUGUARD_IMPL_EMC_RETURN
#undef CUGUARD_IMPL_EMC
