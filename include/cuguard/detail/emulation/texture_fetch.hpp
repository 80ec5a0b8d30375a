// SPDX-License-Identifier: Apache-2.0
// tex1Dfetch of a texture object over linear memory (what CUB's TexObjInputIterator and
// kernels written for older GPUs read through), under emulation: the texture object is the
// emulated runtime's record of its memory (detail/runtime/emulated_texture_calls.hpp), and a
// fetch past its end reads zero, as a GPU's does.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cuguard_impl_texture {
/// What an emulated texture object over linear memory holds: the memory and its size.
struct linear {
  const unsigned char* data;
  std::size_t bytes;
};
} // namespace cuguard_impl_texture

template <class T>
inline T tex1Dfetch(cudaTextureObject_t texture, int x) {
  const auto* t = reinterpret_cast<const cuguard_impl_texture::linear*>(static_cast<std::uintptr_t>(texture));
  T value{};
  if (t != nullptr && x >= 0 && (static_cast<std::size_t>(x) + 1) * sizeof(T) <= t->bytes)
    std::memcpy(&value, t->data + static_cast<std::size_t>(x) * sizeof(T), sizeof(T));
  return value;
}
template <class T>
inline void tex1Dfetch(T* value, cudaTextureObject_t texture, int x) {
  *value = tex1Dfetch<T>(texture, x);
}
