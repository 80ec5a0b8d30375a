// SPDX-License-Identifier: Apache-2.0
// CUDA's loads and stores with cache hints under emulation (<cuguard/emulation.hpp> includes this
// in device sources): __ldca, __ldcg, __ldcs, __ldlu, __ldcv, __stcg, __stcs, __stwb and __stwt,
// for every type, as __ldg is. A hint changes where a GPU keeps the value, never the value: each
// is a plain load or store here.
#pragma once

#include <cuguard/config.hpp>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace cache_hints {
/// T, in a parameter that takes no part in deduction (the value converts to the pointer's type).
template <class T>
struct same {
  using type = T;
};
} // namespace cache_hints
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

/// A load cached in all levels.
template <class T>
inline T __ldca(const T* p) { return *p; }
/// A load cached in the L2 cache only.
template <class T>
inline T __ldcg(const T* p) { return *p; }
/// A streaming load (likely read once).
template <class T>
inline T __ldcs(const T* p) { return *p; }
/// A load of a value the thread reads last.
template <class T>
inline T __ldlu(const T* p) { return *p; }
/// A load that fetches again (the value may change under it).
template <class T>
inline T __ldcv(const T* p) { return *p; }
/// A store cached in the L2 cache only.
template <class T>
inline void __stcg(T* p, typename ::cuguard::detail::cache_hints::same<T>::type value) { *p = value; }
/// A streaming store (likely written once).
template <class T>
inline void __stcs(T* p, typename ::cuguard::detail::cache_hints::same<T>::type value) { *p = value; }
/// A write-back store.
template <class T>
inline void __stwb(T* p, typename ::cuguard::detail::cache_hints::same<T>::type value) { *p = value; }
/// A write-through store (to system memory).
template <class T>
inline void __stwt(T* p, typename ::cuguard::detail::cache_hints::same<T>::type value) { *p = value; }
