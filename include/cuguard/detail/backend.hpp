// SPDX-License-Identifier: Apache-2.0
// The few CUDA runtime calls cuguard makes, and their emulation: memory, copies, sync, names.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include <cxxabi.h>
#include <dlfcn.h>

#if CUGUARD_IMPL_EMULATION
#  include <cuguard/emulation.hpp>
#  include <driver_types.h>
#  include <vector_types.h>
#else
#  include <cuda_runtime.h>
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace backend {

/// cudaError_t as an int, so that both backends share signatures (0: success).
using status = int;

/// "__cxa_demangle'd name without its parameter list" ("gather_rows", "ns::k<float>").
inline std::string readable_name(const char* mangled) {
  if (mangled == nullptr) return "kernel";
  int rc = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &rc);
  std::string name = rc == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  if (name.rfind("void ", 0) == 0) name.erase(0, 5); // a function template's name starts with its return type
  // Drop the parameter list: the last top-level '(' (templates may hold parentheses too).
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      name.resize(i);
      break;
    }
  }
  return name;
}

/// Reads the zero-terminated text at `address` with `copy(dst, src, bytes)` in pieces that stop at
/// 64-byte boundaries, so that no copy runs past the end of the memory the text lies in (a
/// module's globals, a page), or byte by byte where a piece cannot be copied; at most about 4096
/// characters. False when nothing could be read.
template <class Copy>
bool read_text_in_pieces(std::uint64_t address, std::string& out, const Copy& copy) {
  out.clear();
  constexpr std::uint64_t piece = 64, limit = 4096;
  char buffer[piece];
  while (out.size() < limit) {
    std::size_t bytes = static_cast<std::size_t>(piece - address % piece);
    if (!copy(buffer, reinterpret_cast<const void*>(address), bytes)) {
      // The piece may run past the end of the memory the text lies in: one byte, then.
      bytes = 1;
      if (!copy(buffer, reinterpret_cast<const void*>(address), bytes)) return !out.empty();
    }
    for (std::size_t i = 0; i < bytes; ++i) {
      if (buffer[i] == '\0') return true;
      out += buffer[i];
    }
    address += bytes;
  }
  return true;
}

#if CUGUARD_IMPL_EMULATION

// ---------------------------------------------------------------------------------------------
// Emulation: device memory is host memory that the backend keeps a list of, so that views can
// tell "device" memory (which host code must not touch) from plain host memory.
// ---------------------------------------------------------------------------------------------
struct emulated_memory {
  std::mutex mutex;
  std::map<std::uintptr_t, std::size_t> blocks;
};
inline emulated_memory& memory() {
  static emulated_memory m;
  return m;
}

inline status allocate_device(void** p, std::size_t bytes, cudaStream_t) {
  const std::size_t rounded = (bytes + 255) / 256 * 256;
  *p = std::aligned_alloc(256, rounded == 0 ? 256 : rounded);
  if (*p == nullptr) return 2; // cudaErrorMemoryAllocation
  std::lock_guard<std::mutex> lock(memory().mutex);
  memory().blocks[reinterpret_cast<std::uintptr_t>(*p)] = bytes;
  return 0;
}
inline status free_device(void* p, cudaStream_t) {
  {
    std::lock_guard<std::mutex> lock(memory().mutex);
    memory().blocks.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  std::free(p);
  return 0;
}
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
inline bool capturing(cudaStream_t) { return false; } // emulation has no graph capture
inline int current_device() { return 0; }
inline status allocate_mapped(void** host, void** device, std::size_t bytes) {
  *host = std::calloc(1, bytes);
  *device = *host;
  return *host == nullptr ? 2 : 0;
}
inline const char* error_name(status s) { return s == 0 ? "success" : "emulation error"; }
inline const char* error_string(status s) { return s == 0 ? "no error" : "emulated CUDA call failed"; }
inline bool memory_space_of(const void* p, memory_space& space, int& device) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(memory().mutex);
  auto it = memory().blocks.upper_bound(addr);
  if (it != memory().blocks.begin()) {
    --it;
    if (addr - it->first < (it->second == 0 ? 1 : it->second)) {
      space = memory_space::device;
      device = 0;
      return true;
    }
  }
  space = memory_space::host;
  device = -1;
  return true;
}
/// A text that device code pointed to (under emulation, host memory; read as on a GPU).
inline bool read_text(std::uint64_t address, std::string& out) {
  return read_text_in_pieces(address, out, [](void* dst, const void* src, std::size_t bytes) {
    // Up to the terminating zero only: host memory past a text's end is not the reader's to touch.
    for (std::size_t i = 0; i < bytes; ++i)
      if ((static_cast<char*>(dst)[i] = static_cast<const char*>(src)[i]) == '\0') break;
    return true;
  });
}
inline std::string kernel_name(const void* fn) {
  Dl_info info{};
  if (::dladdr(fn, &info) != 0 && info.dli_sname != nullptr) return readable_name(info.dli_sname);
  return "kernel";
}

#else

// ---------------------------------------------------------------------------------------------
// CUDA runtime.
// ---------------------------------------------------------------------------------------------
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
/// True while `stream` is being captured into a CUDA graph.
inline bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
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
inline bool read_text(std::uint64_t address, std::string& out) {
  return read_text_in_pieces(address, out, [](void* dst, const void* src, std::size_t bytes) {
    if (cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
  });
}
inline std::string kernel_name(const void* fn) {
  const char* name = nullptr;
  if (cudaFuncGetName(&name, fn) == cudaSuccess && name != nullptr) return readable_name(name);
  (void)cudaGetLastError();
  Dl_info info{};
  if (::dladdr(fn, &info) != 0 && info.dli_sname != nullptr) return readable_name(info.dli_sname);
  return "kernel";
}

#endif

} // namespace backend
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
