// SPDX-License-Identifier: Apache-2.0
// The CUDA side of detail::backend: the CUDA runtime calls cuguard makes.
#pragma once
// Part of detail/runtime/backend.hpp, which includes it after what both sides share.

#include <cuguard/config.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/runtime/kernel_arguments.hpp>
#include <cuguard/detail/record/state_symbols.hpp>

#include <cuda_runtime.h>

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace backend {

/// Kernels of distinct streams may run at once.
inline constexpr bool kernels_may_overlap = true;

inline status allocate_device(void** p, std::size_t bytes, cudaStream_t stream) {
  return cudaMallocAsync(p, bytes, stream);
}
inline status free_device(void* p, cudaStream_t stream) { return cudaFreeAsync(p, stream); }
inline status copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
  return e != cudaSuccess ? e : cudaStreamSynchronize(stream);
}
inline status copy_async(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
}
inline status set_async(void* dst, int value, std::size_t bytes, cudaStream_t stream) {
  return cudaMemsetAsync(dst, value, bytes, stream);
}
inline status synchronize(cudaStream_t stream) {
  return stream == nullptr ? cudaDeviceSynchronize() : cudaStreamSynchronize(stream);
}
/// True while `stream` is being captured into a CUDA graph. A query CUDA refuses (of the legacy
/// stream while another stream is captured, for one) answers `refused`.
inline bool capturing(cudaStream_t stream, bool refused = false) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    return refused;
  }
  return capture == cudaStreamCaptureStatusActive;
}
inline int current_device() {
  int d = 0;
  return cudaGetDevice(&d) == cudaSuccess ? d : 0;
}
inline status allocate_mapped(void** host, void** device, std::size_t bytes) {
  cudaError_t e = cudaHostAlloc(host, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess) return e;
  std::memset(*host, 0, bytes);
  return cudaHostGetDevicePointer(device, *host, 0);
}
inline const char* error_name(status s) { return cudaGetErrorName(static_cast<cudaError_t>(s)); }
inline const char* error_string(status s) { return cudaGetErrorString(static_cast<cudaError_t>(s)); }
inline bool memory_space_of(const void* p, memory_space& space, int& device) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError(); // no device, or no driver: leave the space unknown
    return false;
  }
  switch (a.type) {
    case cudaMemoryTypeUnregistered: {
      // Devices that can access pageable memory (HMM, ATS) may use it as they use managed memory.
      int pageable = 0;
      int current = 0;
      if (cudaGetDevice(&current) == cudaSuccess)
        (void)cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, current);
      (void)cudaGetLastError();
      space = pageable != 0 ? memory_space::managed : memory_space::host;
      device = -1;
      return true;
    }
    case cudaMemoryTypeHost: space = memory_space::pinned; device = a.device; return true;
    case cudaMemoryTypeDevice: space = memory_space::device; device = a.device; return true;
    case cudaMemoryTypeManaged: space = memory_space::managed; device = a.device; return true;
  }
  return false;
}
/// A text in device memory that device code pointed to (a string literal of a kernel's module).
/// Copied as device memory only: an address that is not (a label in shared or local memory, a
/// freed buffer) fails the copy instead of being read as host memory. False when the memory
/// cannot be read (or the context is lost).
inline bool read_text(std::uint64_t address, text& out) {
  return read_text_in_pieces(address, out, [](void* dst, const void* src, std::size_t bytes) {
    if (cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
  });
}
inline text kernel_name(const void* fn) {
  const char* name = nullptr;
  if (cudaFuncGetName(&name, fn) == cudaSuccess && name != nullptr) return readable_name(name);
  (void)cudaGetLastError();
  Dl_info info{};
  if (::dladdr(fn, &info) != 0 && info.dli_sname != nullptr) return readable_name(info.dli_sname);
  return "kernel";
}


/// A lost context shows in the status of every call: nothing to remember here.
inline bool context_lost() { return false; }
/// The counters are device memory: lost with the context.
inline constexpr bool counters_survive_a_trap = false;

inline status synchronize_device() { return cudaDeviceSynchronize(); }

/// The report channel's counters, in device memory (atomics on mapped host memory are not
/// atomic on every link), zeroed.
inline status allocate_counters(channel_counters** counters) {
  void* p = nullptr;
  if (const cudaError_t s = cudaMalloc(&p, sizeof(channel_counters))) return s;
  *counters = static_cast<channel_counters*>(p);
  (void)cudaMemset(p, 0, sizeof(channel_counters));
  return cudaSuccess;
}
inline bool read_counters(const channel_counters* counters, channel_counters& out) {
  return cudaMemcpy(&out, counters, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess;
}
/// Cleared before a kernel of any stream can count again.
inline void clear_counters(channel_counters* counters) {
  cudaMemset(counters, 0, sizeof(channel_counters));
  cudaDeviceSynchronize();
}

#if CUGUARD_IMPL_CHECKS
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

/// The device copy of the generations (from `snapshot`, `slots` of them) and the launch-number
/// cell, on the current device.
inline status allocate_tables(std::uint32_t** generations, unsigned long long** launch_id, const std::uint32_t* snapshot,
                              std::size_t slots) {
  void* table = nullptr;
  void* id = nullptr;
  if (const cudaError_t s = cudaMalloc(&table, slots * sizeof(std::uint32_t))) return s;
  if (const cudaError_t s = cudaMalloc(&id, sizeof(unsigned long long))) return s;
  cudaMemcpy(table, snapshot, slots * sizeof(std::uint32_t), cudaMemcpyHostToDevice);
  cudaMemset(id, 0, sizeof(unsigned long long));
  cudaDeviceSynchronize(); // once per device: kernels on any stream see the initialized state
  *generations = static_cast<std::uint32_t*>(table);
  *launch_id = static_cast<unsigned long long*>(id);
  return cudaSuccess;
}

/// Sets entry `slot` of the generation table of device `device` (the current one: in the order
/// of `stream`; another: at once). A failed update leaves the slot's old generation: a use after
/// free that goes unreported.
inline status store_generation(std::uint32_t* table, std::uint32_t slot, std::uint32_t generation,
                               cudaStream_t stream, int device) {
  if (device == current_device()) {
    // The kernel cannot run on another device's stream: a copy can (from pageable memory, staged
    // before cudaMemcpyAsync returns).
    if (store_async(table + slot, generation, stream) == cudaSuccess) return cudaSuccess;
    const cudaError_t s = cudaMemcpyAsync(table + slot, &generation, sizeof generation, cudaMemcpyHostToDevice, stream);
    if (s != cudaSuccess) (void)cudaGetLastError();
    return s;
  }
  const int current = current_device();
  cudaSetDevice(device);
  const cudaError_t s = cudaMemcpy(table + slot, &generation, sizeof generation, cudaMemcpyHostToDevice);
  cudaSetDevice(current);
  return s;
}

/// Writes `state` into every translation unit's copy of the device state symbol (the list
/// `symbols`) on
/// the current device.
inline void publish_state(const device_state& state, const state_symbol* symbols) {
  for (const state_symbol* s = symbols; s != nullptr; s = s->next) {
    if (cudaMemcpyToSymbol(s->address, &state, sizeof state) != cudaSuccess)
      (void)cudaGetLastError(); // a module without code for this device: nothing of it can run here
  }
  cudaDeviceSynchronize(); // the symbols are written before any kernel of any stream reads them
}

/// The driver's cuStreamWriteValue64, found once through the runtime (no link to libcuda): a
/// write of a value to device memory in stream order that the GPU's front end carries out, with
/// neither a copy engine nor a kernel. Null where the driver has none.
using write_value_64 = int (*)(cudaStream_t stream, unsigned long long address, unsigned long long value,
                               unsigned flags);
inline write_value_64 driver_write_value_64() {
  static const write_value_64 found = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
#  if CUDART_VERSION >= 12050
    const cudaError_t s = cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", &fn, 11070, cudaEnableDefault, &result);
#  else
    const cudaError_t s = cudaGetDriverEntryPoint("cuStreamWriteValue64", &fn, cudaEnableDefault, &result);
#  endif
    if (s != cudaSuccess) (void)cudaGetLastError();
    return s == cudaSuccess && result == cudaDriverEntryPointSuccess ? reinterpret_cast<write_value_64>(fn) : nullptr;
  }();
  return found;
}

/// The launch number device code reads, in the order of `stream` (a node of the graph when the
/// stream is being captured: `captured`, capturing(stream) as the launch found it). A stream
/// write where the device takes 64-bit stream memory operations: a copy from pageable memory
/// instead (the fallback) put a copy of a few microseconds between every two kernels of the
/// stream.
inline status record_launch(unsigned long long* cell, unsigned long long id, cudaStream_t stream, bool captured) {
  if (captured) return store_async(cell, id, stream);
  static bool write_value_fails = false; // under the runtime's lock, as every launch's record
  if (!write_value_fails) {
    if (const write_value_64 write = driver_write_value_64()) {
#  ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
      // The runtime's stream 0 is the thread's own here; the driver's, the legacy one.
      if (stream == nullptr) stream = cudaStreamPerThread;
#  endif
      if (write(stream, reinterpret_cast<std::uintptr_t>(cell), id, 0) == 0) return cudaSuccess;
    }
    write_value_fails = true;
  }
  return cudaMemcpyAsync(cell, &id, sizeof id, cudaMemcpyHostToDevice, stream); // pageable: copied before it returns
}
#endif

/// Starts `kernel` with the arguments in `params`.
template <class Kernel, class Tuple, std::size_t... I>
status launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, Kernel kernel, Tuple& params,
              text&, std::index_sequence<I...>) {
  void* argv[sizeof...(I) + 1] = {static_cast<void*>(&get<I>(params))..., nullptr};
  const cudaError_t s = cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, argv, shared_bytes, stream);
  if (s != cudaSuccess) (void)cudaGetLastError();
  return s;
}

} // namespace backend
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
