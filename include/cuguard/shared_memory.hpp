// SPDX-License-Identifier: Apache-2.0
// dynamic_shared<T>(): the block's dynamic shared memory, the same spelling under nvcc and emulation.
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>

#if CUGUARD_IMPL_EMULATION
#  include <cuguard/emulation.hpp>
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE

#if CUGUARD_IMPL_EMULATION

/// The running block's dynamic shared memory (its size is the launch's shared_bytes). Use it
/// instead of `extern __shared__`, which a host compiler cannot emulate.
template <class T>
inline T* dynamic_shared() noexcept {
  return reinterpret_cast<T*>(detail::engine::runner().dynamic_shared());
}
/// Size of the running block's dynamic shared memory, in bytes.
inline std::size_t dynamic_shared_bytes() noexcept { return detail::engine::runner().dynamic_shared_bytes(); }

namespace detail {
/// What `extern __shared__ T name[];` at namespace scope becomes in a .cu file built under
/// emulation: an object that is the running block's dynamic shared memory wherever it is used
/// (as a T*, cast to another pointer type, or subscripted). Inside a function the same
/// declaration becomes a T* variable.
template <class T>
struct dynamic_shared_array {
  operator T*() const noexcept { return dynamic_shared<T>(); } // NOLINT: an array decays to a pointer
  /// `(float*)s_buf_raw` of a char array (mmcv's filtered_lrelu): a C-style cast of an array.
  template <class U>
  explicit operator U*() const noexcept {
    return reinterpret_cast<U*>(dynamic_shared<T>());
  }
  T& operator[](std::ptrdiff_t i) const noexcept { return dynamic_shared<T>()[i]; }
};
} // namespace detail

#elif defined(__CUDACC__)

template <class T>
__device__ inline T* dynamic_shared() noexcept {
  extern __shared__ __align__(16) unsigned char cuguard_impl_dynamic_shared[];
  return reinterpret_cast<T*>(cuguard_impl_dynamic_shared);
}
__device__ inline std::size_t dynamic_shared_bytes() noexcept {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

#endif

CUGUARD_IMPL_END_NAMESPACE
