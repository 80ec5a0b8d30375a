// SPDX-License-Identifier: Apache-2.0
// What a kernel's source, translated to checked pointers by the build (python/cuguard/pointers.py:
// its T* parameters and locals are cuguard::ptr<T>), calls where it cast a pointer: a cast to
// U* (C-style, reinterpret_cast, static_cast from void*) keeps a ptr's bounds, in bytes, as
// ptr_cast does, const or not as the cast says; a raw pointer or an integer casts as it did. And
// where a launch deduces a translated kernel template's arguments: from the raw pointers.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/view/ptr_bounds.hpp>
#include <cuguard/ptr.hpp>

#include <cstddef>
#include <cstring>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

#if CUGUARD_IMPL_CHECKS

template <class Bounds>
struct bounds_element;
template <class T>
struct bounds_element<pointer_bounds<T>> {
  using type = T;
};

/// `(U*)p` of a ptr: a ptr<U> over the U that lie whole in p's bytes (ptr<void>: the bytes); a
/// cast of a pointer past the first of its 8- or 16-bit elements to a 4- or 8-byte integer
/// reaches the whole words that hold them (the CAS loop of a half or byte atomic,
/// `(unsigned*)((char*)p - ((size_t)p & 2))`, touches the word's other bytes only to write back
/// what it read).
template <class U, class T>
CUGUARD_HOST_DEVICE ptr<U> pointer_cast(const ptr<T>& p) noexcept {
  ptr<U> cast;
  auto& bounds = ptr_access::bounds(cast);
  constexpr bool words = std::is_integral<std::remove_cv_t<U>>::value && (sizeof(U) == 4 || sizeof(U) == 8) &&
                         !std::is_void<T>::value && sizeof(std::conditional_t<std::is_void<T>::value, U, T>) < 4;
  bounds = recast<typename bounds_element<std::remove_reference_t<decltype(bounds)>>::type>(ptr_access::bounds(p), words);
  return cast;
}

#endif

/// A launch's argument as the kernel's unchanged signature takes it (a ptr: its T*), for the
/// function a translated kernel template's arguments are deduced with (pointers.py).
template <class A>
CUGUARD_HOST_DEVICE constexpr const A& raw_argument(const A& a) noexcept {
  return a;
}
#if CUGUARD_IMPL_CHECKS
template <class T>
CUGUARD_HOST_DEVICE T* raw_argument(const ptr<T>& p) noexcept {
  return unchecked(p);
}
#endif

#if CUGUARD_IMPL_CHECKS
/// A checked launch argument given to the kernel instance its deducer picked: it becomes the
/// parameter's type, a checked pointer (const or volatile added) or, where the parameter stayed a
/// raw pointer (a parameter pack's, `ArgTypes... args`), the raw pointer.
template <class T>
struct either_pointer {
  ptr<T> p;
  template <class U, std::enable_if_t<std::is_constructible<ptr<U>, const ptr<T>&>::value, int> = 0>
  CUGUARD_HOST_DEVICE operator ptr<U>() const noexcept {
    return ptr<U>(p);
  }
  template <class U, std::enable_if_t<std::is_convertible<T*, U*>::value, int> = 0>
  CUGUARD_HOST_DEVICE operator U*() const noexcept {
    return unchecked(p);
  }
};
template <class T>
CUGUARD_HOST_DEVICE either_pointer<T> deduced_argument(const ptr<T>& p) noexcept {
  return {p};
}
#endif
template <class A>
CUGUARD_HOST_DEVICE constexpr const A& deduced_argument(const A& a) noexcept {
  return a;
}

/// `(U*)p` of a raw pointer: as written (a pointer made in device code has no bounds to keep).
template <class U, class T>
CUGUARD_HOST_DEVICE U* pointer_cast(T* p) noexcept {
  // (as the C-style cast the source wrote, which may drop const)
  return const_cast<U*>(reinterpret_cast<const volatile U*>(p));
}

template <class A>
struct is_checked_pointer : std::false_type {};
#if CUGUARD_IMPL_CHECKS
template <class T>
struct is_checked_pointer<ptr<T>> : std::true_type {};
#endif

/// `(U*)a` of an object that is subscripted as an array (emulation's dynamic `extern __shared__`
/// array, mmcv's `(scalar_t*)s_buf_raw`): as the cast of its first element's address.
template <class U, class A, class First = decltype(&std::declval<const A&>()[0]),
          std::enable_if_t<std::is_class<A>::value && !is_checked_pointer<A>::value, int> = 0>
CUGUARD_HOST_DEVICE U* pointer_cast(const A& a) noexcept {
  return pointer_cast<U>(&a[0]);
}

/// `(U*)nullptr`.
template <class U>
CUGUARD_HOST_DEVICE U* pointer_cast(std::nullptr_t) noexcept {
  return nullptr;
}

/// `(U*)n` of an integer (an address computed as a number): as written.
template <class U, class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
CUGUARD_HOST_DEVICE U* pointer_cast(I n) noexcept {
  return reinterpret_cast<U*>(n);
}

#if CUGUARD_IMPL_CHECKS
/// The bytes [0, n) of `p` checked as accesses are (their first and their last), `p` as a raw
/// pointer: what memcpy and memset of a checked pointer give the raw call.
template <class T>
CUGUARD_HOST_DEVICE T* checked_bytes(const ptr<T>& p, std::size_t n) {
  if (n != 0) {
    const auto bytes = pointer_cast<const volatile unsigned char>(p);
    (void)&bytes[0]; // (the check, not a read)
    (void)&bytes[static_cast<std::ptrdiff_t>(n - 1)];
  }
  return unchecked(p);
}
#endif

/// Names the function that holds a checked pointer (`function`: its __PRETTY_FUNCTION__), which
/// the pointer's failed accesses then report; a raw pointer, or a const one, is left as it is.
#if CUGUARD_IMPL_CHECKS
template <class T>
CUGUARD_HOST_DEVICE constexpr void name_function(const char* function, ptr<T>& p) noexcept {
  ptr_access::bounds(p).function = function;
}
#endif
template <class A>
CUGUARD_HOST_DEVICE constexpr void name_function(const char*, const A&) noexcept {}

/// What a translated function does as it starts: names the function its checked pointer
/// parameters are in (`in_function(__PRETTY_FUNCTION__, a, b);`).
template <class... P>
CUGUARD_HOST_DEVICE constexpr void in_function(const char* function, P&... pointers) noexcept {
  (void)function;
  (name_function(function, pointers), ...);
}

/// `(U*)a` in a translated function: pointer_cast, the cast named by the function it is in.
template <class U, class A>
CUGUARD_HOST_DEVICE auto pointer_cast(const char* function, const A& a) noexcept -> decltype(pointer_cast<U>(a)) {
  auto cast = pointer_cast<U>(a);
  name_function(function, cast);
  return cast;
}

} // namespace detail

#if CUGUARD_IMPL_CHECKS
// memcpy and memset of checked pointers in device code (mmcv's `memcpy(out + i, in + j, n *
// sizeof(T))`), found by argument-dependent lookup: each range's first and last byte checked,
// then the call on the raw pointers.
template <class D, class S>
CUGUARD_HOST_DEVICE void* memcpy(const ptr<D>& d, const ptr<S>& s, std::size_t n) {
  return ::memcpy(detail::checked_bytes(d, n), detail::checked_bytes(s, n), n);
}
template <class D, class S>
CUGUARD_HOST_DEVICE void* memcpy(const ptr<D>& d, const S* s, std::size_t n) {
  return ::memcpy(detail::checked_bytes(d, n), s, n);
}
template <class D, class S>
CUGUARD_HOST_DEVICE void* memcpy(D* d, const ptr<S>& s, std::size_t n) {
  return ::memcpy(d, detail::checked_bytes(s, n), n);
}
template <class D>
CUGUARD_HOST_DEVICE void* memset(const ptr<D>& d, int value, std::size_t n) {
  return ::memset(detail::checked_bytes(d, n), value, n);
}
#endif
CUGUARD_IMPL_END_NAMESPACE
