// SPDX-License-Identifier: Apache-2.0
// Texture objects under emulation (<cuguard/emulated_runtime.hpp> includes this): over linear
// memory (cudaResourceTypeLinear), which tex1Dfetch reads (detail/emulation/texture_fetch.hpp);
// arrays, mipmaps and pitched 2D resources are cudaErrorNotSupported.
#pragma once

#include <cuguard/detail/emulation/texture_fetch.hpp>
#include <cuguard/detail/runtime/emulated_calls.hpp>

#include <cuda_runtime.h>

#include <cstdint>

// (hidden: see emulated_runtime.hpp)
#pragma GCC visibility push(hidden)
extern "C" {

inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const cudaResourceDesc* pResDesc,
                                           const cudaTextureDesc* pTexDesc, const cudaResourceViewDesc*) {
  namespace emc = ::cuguard::detail::emulated_runtime;
  if (pTexObject == nullptr || pResDesc == nullptr || pTexDesc == nullptr)
    return emc::returned(__func__, emc::result(cudaErrorInvalidValue));
  if (pResDesc->resType != cudaResourceTypeLinear)
    return emc::returned(__func__, emc::result(cudaErrorNotSupported));
  const auto& linear = pResDesc->res.linear;
  auto* record = new cuguard_impl_texture::linear{static_cast<const unsigned char*>(linear.devPtr), linear.sizeInBytes};
  *pTexObject = static_cast<cudaTextureObject_t>(reinterpret_cast<std::uintptr_t>(record));
  return emc::returned(__func__, cudaSuccess);
}

inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  delete reinterpret_cast<cuguard_impl_texture::linear*>(static_cast<std::uintptr_t>(texObject));
  return ::cuguard::detail::emulated_runtime::returned(__func__, cudaSuccess);
}

} // extern "C"
#pragma GCC visibility pop
