// SPDX-License-Identifier: Apache-2.0
// More of the CUDA runtime API under emulation (<cuguard/emulated_runtime.hpp> includes this):
// what NVIDIA's samples and helper_cuda.h-style programs call around their kernels, with its CPU
// meaning. Launches by address: cudaLaunchKernel, cudaLaunchCooperativeKernel, cudaLaunchKernelExC. The device: cudaSetDeviceFlags, cudaGetDeviceFlags, cudaChooseDevice, limits, cache
// configuration, stream priorities, versions, peer access (one device: none). Kernels:
// cudaFuncGetAttributes, cudaFuncSetAttribute, cudaFuncSetCacheConfig, the shared memory bank
// size calls (4 bytes, fixed), the occupancy calls (the
// emulated H100's, detail/runtime/emulated_device.hpp). Streams: attributes (the L2 access policy
// window, kept and read back), priorities and flags, callbacks and host functions (run at once:
// everything before them on the stream has finished). Host memory: cudaHostRegister,
// cudaHostUnregister, cudaHostGetDevicePointer (a host address is the device's), cudaHostGetFlags.
// Symbols: cudaMemcpyToSymbol / FromSymbol (and Async), cudaGetSymbolAddress of a `__device__` or
// `__constant__` variable (an ordinary variable here). Pitched memory: cudaMallocPitch,
// cudaMemcpy2D, cudaMemset2D. The profiler: cudaProfilerStart / Stop (nothing to profile).
//
// A call of the runtime API that emulation does not define is a link error naming it
// ("undefined reference to `cudaGraphLaunch'"), never a wrong answer.
#pragma once

#include <cuguard/detail/runtime/chevron.hpp>
#include <cuguard/detail/runtime/emulated_calls.hpp>
#include <cuguard/detail/runtime/emulated_device.hpp>
#include <cuguard/detail/runtime/kernel_registry.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#define CUGUARD_IMPL_EDC ::cuguard::detail::emulated_runtime
#define CUGUARD_IMPL_EDC_RETURN(e) return CUGUARD_IMPL_EDC::returned(__func__, e)
#define CUGUARD_IMPL_EDC_FAIL(e) CUGUARD_IMPL_EDC_RETURN(CUGUARD_IMPL_EDC::result(e))

// (hidden: see emulated_runtime.hpp)
#pragma GCC visibility push(hidden)
extern "C" {

// Launches of a kernel given by address (cudaLaunchCooperativeKernel: every block at once, the
// grid's barrier this_grid().sync()): a kernel a translated file defines (kernel_registry.hpp).
inline cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t sharedMem,
                                    cudaStream_t stream) {
  const ::cuguard::detail::registered_launch launch = ::cuguard::detail::kernel_registry::get().find(func);
  if (launch == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  CUGUARD_IMPL_EDC_RETURN(launch(func, false, CUGUARD_IMPL_EDC::call_site(__func__), grid, block, args, sharedMem, stream));
}
inline cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                               size_t sharedMem, cudaStream_t stream) {
  const ::cuguard::detail::registered_launch launch = ::cuguard::detail::kernel_registry::get().find(func);
  if (launch == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  CUGUARD_IMPL_EDC_RETURN(launch(func, true, CUGUARD_IMPL_EDC::call_site(__func__), grid, block, args, sharedMem, stream));
}
/// cudaLaunchKernelEx's C form (the toolkit's template forwards to it): a kernel a translated file
/// defines, with the configuration's attributes (chevron.hpp's launch_attributes).
inline cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  bool cooperative = false;
  if (config == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  const cudaError_t e = ::cuguard::detail::launch_attributes(*config, cooperative);
  if (e != cudaSuccess) CUGUARD_IMPL_EDC_FAIL(e);
  const ::cuguard::detail::registered_launch launch = ::cuguard::detail::kernel_registry::get().find(func);
  if (launch == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  CUGUARD_IMPL_EDC_RETURN(launch(func, cooperative, CUGUARD_IMPL_EDC::call_site(__func__), config->gridDim,
                                 config->blockDim, args, config->dynamicSmemBytes, config->stream));
}

// The device.
inline cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  if ((flags & ~0xffu) != 0) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  CUGUARD_IMPL_EDC::settings().flags = flags;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  *flags = CUGUARD_IMPL_EDC::settings().flags | cudaDeviceMapHost; // host memory is always mapped
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaChooseDevice(int* device, const struct cudaDeviceProp* prop) {
  if (device == nullptr || prop == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  *device = 0;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  if (static_cast<unsigned>(limit) > cudaLimitPersistingL2CacheSize) CUGUARD_IMPL_EDC_FAIL(cudaErrorUnsupportedLimit);
  cudaDeviceProp p;
  CUGUARD_IMPL_EDC::describe_device(p);
  if (limit == cudaLimitPersistingL2CacheSize && value > static_cast<size_t>(p.persistingL2CacheMaxSize))
    value = static_cast<size_t>(p.persistingL2CacheMaxSize); // as CUDA: the most the device sets aside
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  CUGUARD_IMPL_EDC::settings().limits[limit] = value;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceGetLimit(size_t* pValue, enum cudaLimit limit) {
  if (pValue == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  if (static_cast<unsigned>(limit) > cudaLimitPersistingL2CacheSize) CUGUARD_IMPL_EDC_FAIL(cudaErrorUnsupportedLimit);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  *pValue = CUGUARD_IMPL_EDC::settings().limits[limit];
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  if (static_cast<unsigned>(cacheConfig) > cudaFuncCachePreferEqual) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  CUGUARD_IMPL_EDC::settings().cache = cacheConfig;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache* pCacheConfig) {
  if (pCacheConfig == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  *pCacheConfig = CUGUARD_IMPL_EDC::settings().cache;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 0; // the H100's range
  if (greatestPriority != nullptr) *greatestPriority = -5;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (canAccessPeer == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  if (device != 0 || peerDevice != 0) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDevice);
  *canAccessPeer = 0; // a device is not its own peer
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  *driverVersion = CUDART_VERSION; // the toolkit's headers: a driver as new as the runtime
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaCtxResetPersistingL2Cache(void) { CUGUARD_IMPL_EDC_RETURN(cudaSuccess); }
inline cudaError_t cudaProfilerStart(void) { CUGUARD_IMPL_EDC_RETURN(cudaSuccess); }
inline cudaError_t cudaProfilerStop(void) { CUGUARD_IMPL_EDC_RETURN(cudaSuccess); }

// Kernels.
inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  if (func == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = 32;
  attr->ptxVersion = attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = 48 * 1024;
  attr->preferredShmemCarveout = -1;
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  const auto it = CUGUARD_IMPL_EDC::settings().functions.find(func);
  if (it != CUGUARD_IMPL_EDC::settings().functions.end()) {
    attr->maxDynamicSharedSizeBytes = it->second.first;
    attr->preferredShmemCarveout = it->second.second;
  }
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  if (func == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  const bool shared = attr == cudaFuncAttributeMaxDynamicSharedMemorySize;
  if ((shared && (value < 0 || value > 227 * 1024)) ||
      (attr == cudaFuncAttributePreferredSharedMemoryCarveout && (value < -1 || value > 100)))
    CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(CUGUARD_IMPL_EDC::settings().mutex);
  auto& f = CUGUARD_IMPL_EDC::settings().functions.try_emplace(func, 48 * 1024, -1).first->second;
  if (shared) f.first = value;
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) f.second = value;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig) {
  if (func == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  if (static_cast<unsigned>(cacheConfig) > cudaFuncCachePreferEqual) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
// Shared memory bank sizes (deprecated by CUDA, as configurable banks are gone): the emulated
// H100's are 4 bytes, fixed; a setting is accepted and changes nothing, as on such a device.
inline cudaError_t cudaFuncSetSharedMemConfig(const void* func, enum cudaSharedMemConfig config) {
  if (func == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  if (static_cast<unsigned>(config) > cudaSharedMemBankSizeEightByte) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
  if (static_cast<unsigned>(config) > cudaSharedMemBankSizeEightByte) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig* pConfig) {
  if (pConfig == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  *pConfig = cudaSharedMemBankSizeFourByte;
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                          int blockSize, size_t dynamicSMemSize,
                                                                          unsigned int) {
  if (numBlocks == nullptr || blockSize <= 0 || blockSize > 1024) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidValue);
  if (func == nullptr) CUGUARD_IMPL_EDC_FAIL(cudaErrorInvalidDeviceFunction);
  cudaDeviceProp p;
  CUGUARD_IMPL_EDC::describe_device(p);
  *numBlocks = CUGUARD_IMPL_EDC::blocks_per_multiprocessor(p, blockSize, dynamicSMemSize);
  CUGUARD_IMPL_EDC_RETURN(cudaSuccess);
}
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                                 size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                cudaOccupancyDefault); // reported by the call it forwards to
}

} // extern "C"
#pragma GCC visibility pop

#undef CUGUARD_IMPL_EDC_FAIL
#undef CUGUARD_IMPL_EDC_RETURN
#undef CUGUARD_IMPL_EDC
