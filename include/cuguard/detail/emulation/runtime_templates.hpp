// SPDX-License-Identifier: Apache-2.0
// The C++ overloads of the CUDA runtime API that the toolkit's <cuda_runtime.h> gives nvcc only
// (inside `#if defined(__CUDACC__)`): a symbol given as the variable itself
// (cudaMemcpyToSymbol(scale, &h, sizeof h)), a kernel given as its function
// (cudaFuncGetAttributes(&a, kernel)); the occupancy templates are the toolkit's. They forward to the C functions, as the toolkit's do;
// <cuguard/emulated_runtime.hpp> defines those. Declared before <cuda_runtime.h>, whose own
// templates (cudaOccupancyMaxPotentialBlockSize) call them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol(static_cast<const void*>(&symbol), src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) {
  return ::cudaMemcpyToSymbolAsync(static_cast<const void*>(&symbol), src, count, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::cudaMemcpyFromSymbol(dst, static_cast<const void*>(&symbol), count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0) {
  return ::cudaMemcpyFromSymbolAsync(dst, static_cast<const void*>(&symbol), count, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol) {
  return ::cudaGetSymbolAddress(devPtr, static_cast<const void*>(&symbol));
}
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* entry) {
  return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(entry));
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T* entry, cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute(reinterpret_cast<const void*>(entry), attr, value);
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T* func, cudaFuncCache cacheConfig) {
  return ::cudaFuncSetCacheConfig(reinterpret_cast<const void*>(func), cacheConfig);
}
template <class T>
inline cudaError_t cudaFuncSetSharedMemConfig(T* func, cudaSharedMemConfig config) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // (as the toolkit's own template)
  return ::cudaFuncSetSharedMemConfig(reinterpret_cast<const void*>(func), config);
#pragma GCC diagnostic pop
}
