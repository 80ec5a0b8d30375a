// SPDX-License-Identifier: Apache-2.0
// CUDA's atomics and load/store intrinsics for a cuguard::ptr (checks on): `atomicAdd(p + i, v)`
// and `__ldg(p + i)` as kernels write them with a T*, each checking the element first and
// reporting the caller's line. They are hidden friends (found only for a ptr argument, through
// its base pointer_calls<T>) that take pointer_at<T>, whose conversion from a ptr records where
// the call is; each calls CUDA's own function (or emulation's) with the checked address.
#pragma once

#include <cuguard/config.hpp>

#include <cuda/std/source_location>

#include <type_traits>

#if CUGUARD_IMPL_CHECKS // with checks off a ptr is a T*, and CUDA's own functions take it
CUGUARD_IMPL_BEGIN_NAMESPACE

template <class T>
class ptr;

namespace detail {

/// A ptr and the place in the source where a call takes it (the conversion's default argument).
template <class T>
struct pointer_at {
  CUGUARD_HOST_DEVICE pointer_at(const ptr<T>& q,
                                 cuda::std::source_location w = cuda::std::source_location::current()) noexcept
      : p(q), where(w) {}
  /// The element's address, once its access is checked.
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T* checked() const { return &p.at(0, where); }
  ptr<T> p;
  cuda::std::source_location where;
};

// The names these overload are CUDA's, leading underscores included.
#define CUGUARD_IMPL_POINTER_ATOMIC(NAME)                                                          \
  friend CUGUARD_IMPL_DEVICE CUGUARD_IMPL_FORCEINLINE value_type NAME(pointer_at<T> p, value_type v) {      \
    return NAME(p.checked(), v);                                                                    \
  }
#define CUGUARD_IMPL_POINTER_LOAD(NAME)                                                            \
  friend CUGUARD_IMPL_DEVICE CUGUARD_IMPL_FORCEINLINE value_type NAME(pointer_at<T> p) {                    \
    return NAME(static_cast<const value_type*>(p.checked()));                                      \
  }
#define CUGUARD_IMPL_POINTER_STORE(NAME)                                                           \
  friend CUGUARD_IMPL_DEVICE CUGUARD_IMPL_FORCEINLINE void NAME(pointer_at<T> p, value_type v) { NAME(p.checked(), v); }

/// The base of ptr<T> that holds its hidden friends.
template <class T>
class pointer_calls {
  using value_type = std::remove_cv_t<T>;

  CUGUARD_IMPL_POINTER_ATOMIC(atomicAdd)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicSub)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicExch)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicMin)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicMax)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicInc)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicDec)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicAnd)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicOr)
  CUGUARD_IMPL_POINTER_ATOMIC(atomicXor)
  friend CUGUARD_IMPL_DEVICE CUGUARD_IMPL_FORCEINLINE value_type atomicCAS(pointer_at<T> p, value_type compare, value_type v) {
    return atomicCAS(p.checked(), compare, v);
  }
  CUGUARD_IMPL_POINTER_LOAD(__ldg)
  CUGUARD_IMPL_POINTER_LOAD(__ldcg)
  CUGUARD_IMPL_POINTER_LOAD(__ldca)
  CUGUARD_IMPL_POINTER_LOAD(__ldcs)
  CUGUARD_IMPL_POINTER_LOAD(__ldlu)
  CUGUARD_IMPL_POINTER_LOAD(__ldcv)
  CUGUARD_IMPL_POINTER_STORE(__stwb)
  CUGUARD_IMPL_POINTER_STORE(__stcg)
  CUGUARD_IMPL_POINTER_STORE(__stcs)
  CUGUARD_IMPL_POINTER_STORE(__stwt)
};

#undef CUGUARD_IMPL_POINTER_ATOMIC
#undef CUGUARD_IMPL_POINTER_LOAD
#undef CUGUARD_IMPL_POINTER_STORE

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
#endif
