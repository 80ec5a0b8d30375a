// SPDX-License-Identifier: Apache-2.0
// The emulated device as the runtime API describes it (cudaGetDeviceProperties,
// cudaDeviceGetAttribute, cudaFuncGetAttributes, the occupancy calls, the limits): an NVIDIA H100
// SXM (compute capability 9.0, its clocks, caches and limits), with one multiprocessor per CPU
// core and the machine's memory as its global memory. Programs that pick a device, size a grid
// by its multiprocessors or check a capability find what they would on that GPU.
#pragma once

#include <cuguard/config.hpp>

#include <cuda_runtime.h>

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// Total and free bytes of the machine's memory, as the device's.
inline void machine_memory(std::size_t& total, std::size_t& available) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), avail = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  total = pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size) : 0;
  available = avail > 0 && size > 0 ? static_cast<std::size_t>(avail) * static_cast<std::size_t>(size) : 0;
}

/// The H100's figures that cudaDeviceProp no longer holds (CUDA 13), for cudaDeviceGetAttribute.
inline constexpr int clock_rate_khz = 1980000, memory_clock_rate_khz = 2619000;

/// The texture and surface limits of the emulated device.
inline void describe_textures(cudaDeviceProp& p) {
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.surfaceAlignment = 512;
  p.maxTexture1D = p.maxTexture1DMipmap = p.maxTexture2D[0] = p.maxTexture2DMipmap[0] = 131072;
  p.maxTexture2D[1] = p.maxTexture2DMipmap[1] = 65536;
  p.maxTexture2DLinear[0] = p.maxTexture2DLinear[1] = 131072;
  p.maxTexture2DLinear[2] = 2097120;
  p.maxTexture2DGather[0] = p.maxTexture2DGather[1] = 32768;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 16384;
  p.maxTexture3DAlt[0] = p.maxTexture3DAlt[1] = 8192;
  p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = p.maxTextureCubemapLayered[0] = 32768;
  p.maxTextureCubemapLayered[1] = 2046;
  p.maxTexture1DLayered[0] = 32768;
  p.maxTexture1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = 32768;
  p.maxTexture2DLayered[2] = 2048;
  p.maxSurface1D = p.maxSurface2D[0] = 32768;
  p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = 16384;
  p.maxSurface1DLayered[0] = 32768;
  p.maxSurface1DLayered[1] = 2048;
  p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = 32768;
  p.maxSurface2DLayered[2] = 2048;
  p.maxSurfaceCubemap = p.maxSurfaceCubemapLayered[0] = 32768;
  p.maxSurfaceCubemapLayered[1] = 2046;
}

/// The emulated device, as cudaGetDeviceProperties describes it.
inline void describe_device(cudaDeviceProp& p) {
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "cuguard emulation of an NVIDIA H100 (CPU threads)");
  std::size_t available = 0;
  machine_memory(p.totalGlobalMem, available);
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerBlockOptin = 227 * 1024;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.reservedSharedMemPerBlock = 1024;
  p.regsPerBlock = p.regsPerMultiprocessor = 65536;
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 * 1024;
  p.major = 9;
  p.minor = 0;
  const unsigned cores = std::thread::hardware_concurrency();
  p.multiProcessorCount = cores == 0 ? 1 : static_cast<int>(cores);
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  describe_textures(p);
  p.concurrentKernels = 1;
  p.asyncEngineCount = 2; // copies overlap kernels on the GPU (here everything runs at once)
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 5120;
  p.l2CacheSize = 50 * 1024 * 1024;
  p.persistingL2CacheMaxSize = 30 * 1024 * 1024;
  p.accessPolicyMaxWindowSize = 128 * 1024 * 1024;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = p.localL1CacheSupported = 1;
  p.managedMemory = p.concurrentManagedAccess = 1;
  p.canMapHostMemory = 1;
  p.computePreemptionSupported = 1;
  p.cooperativeLaunch = 1;
  p.hostRegisterSupported = 1;
  p.memoryPoolsSupported = 1;
  p.pageableMemoryAccess = p.pageableMemoryAccessUsesHostPageTables = 1; // one address space
  p.canUseHostPointerForRegisteredMem = 1;
  p.directManagedMemAccessFromHost = 1;
  p.hostNativeAtomicSupported = 1;
  p.clusterLaunch = 1;
  p.deviceNumaConfig = 0;
  p.deviceNumaId = p.hostNumaId = -1;
  p.ipcEventSupported = 0;
}

/// A texture or surface limit: true, and its value in `v`; false for another attribute.
inline bool texture_attribute(const cudaDeviceProp& p, cudaDeviceAttr attr, int& v) {
  switch (attr) {
  case cudaDevAttrTextureAlignment: v = static_cast<int>(p.textureAlignment); break;
  case cudaDevAttrMaxTexture1DWidth: v = p.maxTexture1D; break;
  case cudaDevAttrMaxTexture2DWidth: v = p.maxTexture2D[0]; break;
  case cudaDevAttrMaxTexture2DHeight: v = p.maxTexture2D[1]; break;
  case cudaDevAttrMaxTexture3DWidth: v = p.maxTexture3D[0]; break;
  case cudaDevAttrMaxTexture3DHeight: v = p.maxTexture3D[1]; break;
  case cudaDevAttrMaxTexture3DDepth: v = p.maxTexture3D[2]; break;
  case cudaDevAttrMaxTexture2DLayeredWidth: v = p.maxTexture2DLayered[0]; break;
  case cudaDevAttrMaxTexture2DLayeredHeight: v = p.maxTexture2DLayered[1]; break;
  case cudaDevAttrMaxTexture2DLayeredLayers: v = p.maxTexture2DLayered[2]; break;
  case cudaDevAttrSurfaceAlignment: v = static_cast<int>(p.surfaceAlignment); break;
  case cudaDevAttrMaxTexture1DLayeredWidth: v = p.maxTexture1DLayered[0]; break;
  case cudaDevAttrMaxTexture1DLayeredLayers: v = p.maxTexture1DLayered[1]; break;
  case cudaDevAttrMaxTexture2DGatherWidth: v = p.maxTexture2DGather[0]; break;
  case cudaDevAttrMaxTexture2DGatherHeight: v = p.maxTexture2DGather[1]; break;
  case cudaDevAttrMaxTexture3DWidthAlt: v = p.maxTexture3DAlt[0]; break;
  case cudaDevAttrMaxTexture3DHeightAlt: v = p.maxTexture3DAlt[1]; break;
  case cudaDevAttrMaxTexture3DDepthAlt: v = p.maxTexture3DAlt[2]; break;
  case cudaDevAttrTexturePitchAlignment: v = static_cast<int>(p.texturePitchAlignment); break;
  case cudaDevAttrMaxTextureCubemapWidth: v = p.maxTextureCubemap; break;
  case cudaDevAttrMaxTextureCubemapLayeredWidth: v = p.maxTextureCubemapLayered[0]; break;
  case cudaDevAttrMaxTextureCubemapLayeredLayers: v = p.maxTextureCubemapLayered[1]; break;
  case cudaDevAttrMaxSurface1DWidth: v = p.maxSurface1D; break;
  case cudaDevAttrMaxSurface2DWidth: v = p.maxSurface2D[0]; break;
  case cudaDevAttrMaxSurface2DHeight: v = p.maxSurface2D[1]; break;
  case cudaDevAttrMaxSurface3DWidth: v = p.maxSurface3D[0]; break;
  case cudaDevAttrMaxSurface3DHeight: v = p.maxSurface3D[1]; break;
  case cudaDevAttrMaxSurface3DDepth: v = p.maxSurface3D[2]; break;
  case cudaDevAttrMaxSurface1DLayeredWidth: v = p.maxSurface1DLayered[0]; break;
  case cudaDevAttrMaxSurface1DLayeredLayers: v = p.maxSurface1DLayered[1]; break;
  case cudaDevAttrMaxSurface2DLayeredWidth: v = p.maxSurface2DLayered[0]; break;
  case cudaDevAttrMaxSurface2DLayeredHeight: v = p.maxSurface2DLayered[1]; break;
  case cudaDevAttrMaxSurface2DLayeredLayers: v = p.maxSurface2DLayered[2]; break;
  case cudaDevAttrMaxSurfaceCubemapWidth: v = p.maxSurfaceCubemap; break;
  case cudaDevAttrMaxSurfaceCubemapLayeredWidth: v = p.maxSurfaceCubemapLayered[0]; break;
  case cudaDevAttrMaxSurfaceCubemapLayeredLayers: v = p.maxSurfaceCubemapLayered[1]; break;
  case cudaDevAttrMaxTexture1DLinearWidth: v = 268435456; break;
  case cudaDevAttrMaxTexture2DLinearWidth: v = p.maxTexture2DLinear[0]; break;
  case cudaDevAttrMaxTexture2DLinearHeight: v = p.maxTexture2DLinear[1]; break;
  case cudaDevAttrMaxTexture2DLinearPitch: v = p.maxTexture2DLinear[2]; break;
  case cudaDevAttrMaxTexture2DMipmappedWidth: v = p.maxTexture2DMipmap[0]; break;
  case cudaDevAttrMaxTexture2DMipmappedHeight: v = p.maxTexture2DMipmap[1]; break;
  case cudaDevAttrMaxTexture1DMipmappedWidth: v = p.maxTexture1DMipmap; break;
  default: return false;
  }
  return true;
}

/// A feature or limit of compute capability 6 and later: true, and its value in `v`; false for another attribute.
inline bool feature_attribute(const cudaDeviceProp& p, cudaDeviceAttr attr, int& v) {
  switch (attr) {
  case cudaDevAttrStreamPrioritiesSupported: v = p.streamPrioritiesSupported; break;
  case cudaDevAttrGlobalL1CacheSupported: v = p.globalL1CacheSupported; break;
  case cudaDevAttrLocalL1CacheSupported: v = p.localL1CacheSupported; break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = static_cast<int>(p.sharedMemPerMultiprocessor); break;
  case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
  case cudaDevAttrManagedMemory: v = p.managedMemory; break;
  case cudaDevAttrIsMultiGpuBoard: v = p.isMultiGpuBoard; break;
  case cudaDevAttrMultiGpuBoardGroupID: v = p.multiGpuBoardGroupID; break;
  case cudaDevAttrHostNativeAtomicSupported: v = p.hostNativeAtomicSupported; break;
  case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
  case cudaDevAttrPageableMemoryAccess: v = p.pageableMemoryAccess; break;
  case cudaDevAttrConcurrentManagedAccess: v = p.concurrentManagedAccess; break;
  case cudaDevAttrComputePreemptionSupported: v = p.computePreemptionSupported; break;
  case cudaDevAttrCanUseHostPointerForRegisteredMem: v = p.canUseHostPointerForRegisteredMem; break;
  case cudaDevAttrCooperativeLaunch: v = p.cooperativeLaunch; break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = static_cast<int>(p.sharedMemPerBlockOptin); break;
  case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
  case cudaDevAttrHostRegisterSupported: v = p.hostRegisterSupported; break;
  case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = p.pageableMemoryAccessUsesHostPageTables; break;
  case cudaDevAttrDirectManagedMemAccessFromHost: v = p.directManagedMemAccessFromHost; break;
  case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
  case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; break;
  case cudaDevAttrMaxAccessPolicyWindowSize: v = p.accessPolicyMaxWindowSize; break;
  case cudaDevAttrReservedSharedMemoryPerBlock: v = static_cast<int>(p.reservedSharedMemPerBlock); break;
  case cudaDevAttrSparseCudaArraySupported: v = p.sparseCudaArraySupported; break;
  case cudaDevAttrHostRegisterReadOnlySupported: v = 1; break;
  case cudaDevAttrTimelineSemaphoreInteropSupported: v = 0; break;
  case cudaDevAttrMemoryPoolsSupported: v = p.memoryPoolsSupported; break;
  case cudaDevAttrGPUDirectRDMASupported: v = 0; break;
  case cudaDevAttrGPUDirectRDMAFlushWritesOptions: v = 0; break;
  case cudaDevAttrGPUDirectRDMAWritesOrdering: v = 0; break;
  case cudaDevAttrMemoryPoolSupportedHandleTypes: v = 0; break;
  case cudaDevAttrClusterLaunch: v = p.clusterLaunch; break;
  case cudaDevAttrDeferredMappingCudaArraySupported: v = 0; break;
  case cudaDevAttrIpcEventSupport: v = p.ipcEventSupported; break;
  case cudaDevAttrMemSyncDomainCount: v = 4; break;
  case cudaDevAttrNumaConfig: v = p.deviceNumaConfig; break;
  case cudaDevAttrNumaId: v = p.deviceNumaId; break;
  case cudaDevAttrMpsEnabled: v = 0; break;
  case cudaDevAttrHostNumaId: v = p.hostNumaId; break;
  default: return false;
  }
  return true;
}

/// The block, grid, memory, clock and capability figures: true, and its value in `v`; false for another attribute.
inline bool basic_attribute(const cudaDeviceProp& p, cudaDeviceAttr attr, int& v) {
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
  case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
  case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
  case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
  case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
  case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
  case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: v = static_cast<int>(p.sharedMemPerBlock); break;
  case cudaDevAttrTotalConstantMemory: v = static_cast<int>(p.totalConstMem); break;
  case cudaDevAttrWarpSize: v = p.warpSize; break;
  case cudaDevAttrMaxPitch: v = static_cast<int>(p.memPitch); break;
  case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
  case cudaDevAttrClockRate: v = clock_rate_khz; break;
  case cudaDevAttrGpuOverlap: v = 1; break;
  case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
  case cudaDevAttrKernelExecTimeout: v = 0; break;
  case cudaDevAttrIntegrated: v = p.integrated; break;
  case cudaDevAttrCanMapHostMemory: v = p.canMapHostMemory; break;
  case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
  case cudaDevAttrConcurrentKernels: v = p.concurrentKernels; break;
  case cudaDevAttrEccEnabled: v = p.ECCEnabled; break;
  case cudaDevAttrPciBusId: v = p.pciBusID; break;
  case cudaDevAttrPciDeviceId: v = p.pciDeviceID; break;
  case cudaDevAttrTccDriver: v = p.tccDriver; break;
  case cudaDevAttrMemoryClockRate: v = memory_clock_rate_khz; break;
  case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
  case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
  case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
  case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
  case cudaDevAttrUnifiedAddressing: v = p.unifiedAddressing; break;
  case cudaDevAttrPciDomainId: v = p.pciDomainID; break;
  case cudaDevAttrComputeCapabilityMajor: v = p.major; break;
  case cudaDevAttrComputeCapabilityMinor: v = p.minor; break;
  default: return false;
  }
  return true;
}

/// cudaDeviceGetAttribute's value of `attr` for the device `p` describes: cudaSuccess, or
/// cudaErrorInvalidValue for an attribute CUDA does not define (reserved, or newer than these).
inline cudaError_t device_attribute(const cudaDeviceProp& p, cudaDeviceAttr attr, int& v) {
  v = 0;
  if (basic_attribute(p, attr, v) || texture_attribute(p, attr, v) || feature_attribute(p, attr, v)) return cudaSuccess;
  return cudaErrorInvalidValue;
}

/// What programs set on the emulated device and read back: flags, limits, cache preferences,
/// kernels' attributes, stream attributes and registered host memory.
struct device_settings {
  std::mutex mutex;
  unsigned flags = 0;
  // cudaLimitStackSize, PrintfFifoSize, MallocHeapSize, DevRuntimeSyncDepth,
  // DevRuntimePendingLaunchCount, MaxL2FetchGranularity, PersistingL2CacheSize: the GPU's defaults
  std::size_t limits[7] = {1024, 1048576, 8388608, 2, 2048, 64, 0};
  cudaFuncCache cache = cudaFuncCachePreferNone;
  std::map<const void*, std::pair<int, int>> functions; ///< kernel: max dynamic shared memory, carveout
  std::map<std::pair<const void*, int>, cudaStreamAttrValue> stream_attributes;
  std::map<std::uintptr_t, std::pair<std::size_t, unsigned>> registered; ///< begin: bytes, flags
};
inline device_settings& settings() {
  static device_settings* const s = new device_settings; // never destroyed: calls may come late
  return *s;
}

/// The registration (cudaHostRegister) that holds `p`: true, and its first byte and flags.
inline bool registered_range(const void* p, std::uintptr_t& begin, unsigned& flags) {
  device_settings& s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = s.registered.upper_bound(a);
  if (it == s.registered.begin()) return false;
  --it;
  if (a - it->first >= it->second.first) return false;
  begin = it->first;
  flags = it->second.second;
  return true;
}

/// cudaOccupancyMaxActiveBlocksPerMultiprocessor for the emulated device: the blocks of
/// `block_size` threads and `dynamic_shared` bytes one multiprocessor holds, taking 32 registers
/// a thread and no static shared memory (what a kernel uses is not known on the host here).
inline int blocks_per_multiprocessor(const cudaDeviceProp& p, int block_size, std::size_t dynamic_shared) {
  const int warps = (block_size + p.warpSize - 1) / p.warpSize;
  int blocks = p.maxBlocksPerMultiProcessor;
  blocks = std::min(blocks, p.maxThreadsPerMultiProcessor / (warps * p.warpSize));
  blocks = std::min(blocks, p.regsPerMultiprocessor / (warps * p.warpSize * 32));
  const std::size_t shared = dynamic_shared + p.reservedSharedMemPerBlock;
  if (dynamic_shared != 0) blocks = std::min<int>(blocks, static_cast<int>(p.sharedMemPerMultiprocessor / shared));
  return blocks;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
