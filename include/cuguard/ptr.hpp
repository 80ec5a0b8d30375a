// SPDX-License-Identifier: Apache-2.0
// cuguard::ptr<T>: a checked pointer that replaces T* in a kernel's or device function's
// parameters, with the body unchanged; ptr_cast, unchecked and make_ptr beside it.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/detail/index/index_args.hpp>
#include <cuguard/detail/record/access_check.hpp>
#include <cuguard/detail/view/lifetime_token.hpp>
#include <cuguard/detail/view/ptr_bounds.hpp>
#include <cuguard/detail/view/ptr_calls.hpp>
#include <cuguard/detail/view/view_parts.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>
#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION
#  include <vector_types.h>
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

/// `__restrict__` where a kernel's parameter was `T* __restrict__`: `cuguard::ptr<const float>
/// CUGUARD_RESTRICT x`. With checks off a ptr is a T*, and keeps its `__restrict__`; with checks on
/// it is a class, which the qualifier cannot apply to.
#if CUGUARD_IMPL_CHECKS
#  define CUGUARD_RESTRICT
#else
#  define CUGUARD_RESTRICT __restrict__
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE

#if CUGUARD_IMPL_CHECKS

namespace detail {
struct ptr_access;
} // namespace detail

/// A pointer to T that checks every access against its bounds (CUGUARD_ENABLE_CHECKS=1), and is
/// a T* with checks off. It replaces `T*` in the parameters of a kernel or device function, or as
/// a member of a struct passed to a kernel, and the code that used the T* stays as it was: `p[i]`,
/// `*p`, `p->m`, `p + n`, `n + p`, `p - n`, `p - q`, `++`, `--`, `+=`, `-=`, comparisons with
/// another pointer or `nullptr`, `if (p)`, ptr<T> to ptr<const T>, and, given `p` or `p + i`,
/// CUDA's atomics (`atomicAdd`, `atomicCAS`, ...) and load/store intrinsics (`__ldg`, `__stcs`,
/// ...). A pointer may point anywhere (one past the end, before the start on the way back);
/// only its accesses are checked.
///
/// Its bounds come from where it was made: from a T* in host code (a kernel argument
/// `x.data_ptr<float>()` or `buffer.data()`), the allocation that holds the address (a
/// device_buffer, cuguard::track, emulation's cudaMalloc; in a cuguard::torch extension the
/// tensor's storage under emulation, the caching allocator's block on a GPU; a pointer into
/// memory cuguard does not know is said once on stderr and not checked); from a view, its
/// elements (make_ptr); from
/// cuguard::torch::ptr<T>(tensor, "name"), the tensor's. A bad access is reported as a view's:
/// the line of `p[i]` (of `*p` and `p->m` no line: write `p[0]` where the line matters), the
/// offset from the first element of the bounds, the extent, the label, the thread and the launch.
template <class T>
class ptr : private detail::pointer_calls<T> {
  static_assert(std::is_object<T>::value, "cuguard::ptr<T>: T must be an object type or void (not a function)");

  template <class>
  friend class ptr;
  friend struct detail::pointer_at<T>;
  friend struct detail::ptr_access;

  using location = cuda::std::source_location;

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using difference_type = std::ptrdiff_t;
  // (an iterator's types, as CUB's block loads read them; no category: <iterator> would cost
  // every translation unit <string>)
  using reference = T&;
  using pointer = T*;

  /// A null pointer: no element to reach.
  ptr() = default;
  CUGUARD_HOST_DEVICE ptr(std::nullptr_t) noexcept {}

  /// From a T* (or a U* that converts to one): in host code, bounded by the tracked allocation
  /// that holds `p` (see the class). A template, so that `0` and `NULL` are null pointers only.
  template <class U, std::enable_if_t<std::is_convertible<U*, T*>::value, int> = 0>
  CUGUARD_HOST_DEVICE ptr(U* p, location where = location::current()) : b_(detail::bounds_of(static_cast<T*>(p), where)) {}

  /// ptr<const T> from ptr<T>.
  template <class U, std::enable_if_t<std::is_same<const U, T>::value && !std::is_const<U>::value, int> = 0>
  CUGUARD_HOST_DEVICE ptr(const ptr<U>& other) noexcept : b_{other.b_.view, other.b_.offset, other.b_.function} {}
  /// ptr<volatile T> (a flag polled through volatile) from ptr<T>, as a T* converts.
  template <class U, std::enable_if_t<std::is_volatile<T>::value && !std::is_volatile<U>::value &&
                                          std::is_same<std::remove_cv_t<U>, std::remove_cv_t<T>>::value &&
                                          std::is_convertible<U*, T*>::value,
                                      int> = 0>
  CUGUARD_HOST_DEVICE ptr(const ptr<U>& other) noexcept : b_(detail::recast<T>(other.b_)) {}

  /// The element i places on, checked; a failed check reports this line.
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator[](detail::first_index i) const { return at(i.value, i.where); }
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator[](detail::first_checked_index i) const {
    i.value = wrapping_add(b_.offset, i.value);
    return element(i);
  }
  /// The element it points to, checked (a report names no line: the language gives *p none).
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator*() const { return at(0, location{}); }
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T* operator->() const { return &at(0, location{}); }

  /// True unless null.
  CUGUARD_HOST_DEVICE explicit operator bool() const noexcept { return address() != 0; }
  /// The address as an integer wide enough to hold it (`(size_t)p`, `(int64_t)p`: alignment
  /// arithmetic), as a T*'s cast gives it.
  template <class I, std::enable_if_t<detail::is_integer_v<I> && sizeof(I) >= sizeof(void*), int> = 0>
  CUGUARD_HOST_DEVICE explicit operator I() const noexcept {
    return static_cast<I>(address());
  }

  CUGUARD_HOST_DEVICE ptr& operator++() noexcept { return step(1); }
  CUGUARD_HOST_DEVICE ptr& operator--() noexcept { return step(-1); }
  CUGUARD_HOST_DEVICE ptr operator++(int) noexcept {
    ptr old = *this;
    step(1);
    return old;
  }
  CUGUARD_HOST_DEVICE ptr operator--(int) noexcept {
    ptr old = *this;
    step(-1);
    return old;
  }
  template <class I, std::enable_if_t<detail::is_integer_v<I>, int> = 0>
  CUGUARD_HOST_DEVICE ptr& operator+=(I n) noexcept {
    return step(static_cast<std::int64_t>(n));
  }
  template <class I, std::enable_if_t<detail::is_integer_v<I>, int> = 0>
  CUGUARD_HOST_DEVICE ptr& operator-=(I n) noexcept {
    return step(-static_cast<std::int64_t>(n));
  }
  template <class I, std::enable_if_t<detail::is_integer_v<I>, int> = 0>
  CUGUARD_HOST_DEVICE friend ptr operator+(ptr p, I n) noexcept {
    return p += n;
  }
  template <class I, std::enable_if_t<detail::is_integer_v<I>, int> = 0>
  CUGUARD_HOST_DEVICE friend ptr operator+(I n, ptr p) noexcept {
    return p += n;
  }
  template <class I, std::enable_if_t<detail::is_integer_v<I>, int> = 0>
  CUGUARD_HOST_DEVICE friend ptr operator-(ptr p, I n) noexcept {
    return p -= n;
  }
  /// The distance in elements, as between two T*.
  CUGUARD_HOST_DEVICE friend std::ptrdiff_t operator-(const ptr& a, const ptr& b) noexcept {
    return static_cast<std::ptrdiff_t>(a.address() - b.address()) / static_cast<std::ptrdiff_t>(sizeof(T));
  }
  // With a null pointer (nullptr, 0, NULL), as a T* compares.
  CUGUARD_HOST_DEVICE friend bool operator==(const ptr& a, std::nullptr_t) noexcept { return a.address() == 0; }
  CUGUARD_HOST_DEVICE friend bool operator==(std::nullptr_t, const ptr& a) noexcept { return a.address() == 0; }
  CUGUARD_HOST_DEVICE friend bool operator!=(const ptr& a, std::nullptr_t) noexcept { return a.address() != 0; }
  CUGUARD_HOST_DEVICE friend bool operator!=(std::nullptr_t, const ptr& a) noexcept { return a.address() != 0; }
  // Comparisons by address, as of two T* (a ptr<T> and a ptr<const T> meet as ptr<const T>).
  CUGUARD_HOST_DEVICE friend bool operator==(const ptr& a, const ptr& b) noexcept { return a.address() == b.address(); }
  CUGUARD_HOST_DEVICE friend bool operator!=(const ptr& a, const ptr& b) noexcept { return a.address() != b.address(); }
  CUGUARD_HOST_DEVICE friend bool operator<(const ptr& a, const ptr& b) noexcept { return a.address() < b.address(); }
  CUGUARD_HOST_DEVICE friend bool operator<=(const ptr& a, const ptr& b) noexcept { return a.address() <= b.address(); }
  CUGUARD_HOST_DEVICE friend bool operator>(const ptr& a, const ptr& b) noexcept { return a.address() > b.address(); }
  CUGUARD_HOST_DEVICE friend bool operator>=(const ptr& a, const ptr& b) noexcept { return a.address() >= b.address(); }

 private:
  CUGUARD_HOST_DEVICE explicit ptr(const detail::pointer_bounds<T>& b) noexcept : b_(b) {}

  CUGUARD_HOST_DEVICE static constexpr std::int64_t wrapping_add(std::int64_t a, std::int64_t b) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  }
  CUGUARD_HOST_DEVICE ptr& step(std::int64_t n) noexcept {
    b_.offset = wrapping_add(b_.offset, n);
    return *this;
  }
  CUGUARD_HOST_DEVICE std::uintptr_t address() const noexcept {
    return reinterpret_cast<std::uintptr_t>(b_.view.data()) + static_cast<std::uintptr_t>(b_.offset) * sizeof(T);
  }

  // The element at offset + i, checked as a view's element: one predicate, one unlikely branch.
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& at(std::int64_t i, const location& where) const {
    return element(detail::first_index(wrapping_add(b_.offset, i), where));
  }
  // `i` at the same place, in the function that holds this pointer where it is named
  template <class First>
  CUGUARD_HOST_DEVICE First in_function(First i) const noexcept {
    if (b_.function != nullptr)
      i.where = location::current(i.where.file_name(), b_.function, i.where.line(), i.where.column());
    return i;
  }
  // `i`: the index from the first element of the bounds (the address is formed only once it
  // passed, inside them).
  template <class First>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& element(const First& i) const {
    const std::int64_t idx[1] = {i.value};
    const std::int64_t extent[1] = {b_.view.extent(0)};
    if (CUGUARD_IMPL_UNLIKELY(detail::access_fails(b_.view.space_ok(), detail::alive<false>(b_.view.token()), idx, extent)))
      return detail::fail_access(b_.view, operation::pointer_access, 0, in_function(i));
    detail::assume_inside(idx, extent);
    return b_.view.data()[idx[0]];
  }

  detail::pointer_bounds<T> b_;
};

namespace detail {
/// The one door to a ptr's parts, for the functions beside it.
struct ptr_access {
  // (a ptr<void>'s: the bounds of its bytes)
  template <class T>
  CUGUARD_HOST_DEVICE static constexpr auto& bounds(ptr<T>& p) noexcept {
    return p.b_;
  }
  template <class T>
  CUGUARD_HOST_DEVICE static constexpr const auto& bounds(const ptr<T>& p) noexcept {
    return p.b_;
  }
  template <class T>
  CUGUARD_HOST_DEVICE static std::uintptr_t address(const ptr<T>& p) noexcept {
    return p.address();
  }
  template <class T>
  CUGUARD_HOST_DEVICE static ptr<T> make(const pointer_bounds<T>& b) noexcept {
    return ptr<T>(b);
  }
};

/// cuguard::launch names, checks and stamps a ptr argument through its bounds, as a view.
template <class T>
struct argument_view<ptr<T>> {
  static constexpr bool value = true;
  static auto& get(ptr<T>& p) noexcept { return ptr_access::bounds(p).view; }
};

/// What ptr<void> and ptr<const void> are: the bounds of the bytes it may reach (`Byte`: unsigned
/// char, const for ptr<const void>), made as a void* is, from a pointer or a ptr of any object
/// type (const only into const); null, tested, compared; no access: ptr_cast<T> gives a ptr<T>
/// back, bounded by the T that lie whole in the bytes.
template <class Byte>
class void_pointer {
  using location = cuda::std::source_location;
  using void_type = std::conditional_t<std::is_const<Byte>::value, const void, void>;

 public:
  using element_type = void_type;

  void_pointer() = default;
  CUGUARD_HOST_DEVICE void_pointer(std::nullptr_t) noexcept {}
  /// From a U* that converts to a void_type*: in host code, bounded by the bytes of the tracked
  /// allocation that holds it, as a ptr<T> is.
  template <class U, std::enable_if_t<std::is_convertible<U*, void_type*>::value, int> = 0>
  CUGUARD_HOST_DEVICE void_pointer(U* p, location where = location::current())
      : b_(bounds_of(reinterpret_cast<Byte*>(static_cast<void_type*>(p)), where)) {}
  /// From a ptr<U> (as a U* converts to void*): the bytes of its bounds.
  template <class U, std::enable_if_t<std::is_convertible<U*, void_type*>::value && !std::is_void<U>::value, int> = 0>
  CUGUARD_HOST_DEVICE void_pointer(const ptr<U>& q) noexcept : b_(recast<Byte>(ptr_access::bounds(q))) {}

  CUGUARD_HOST_DEVICE explicit operator bool() const noexcept { return address() != 0; }
  /// The address as an integer wide enough to hold it, as a void*'s cast gives it.
  template <class I, std::enable_if_t<is_integer_v<I> && sizeof(I) >= sizeof(void*), int> = 0>
  CUGUARD_HOST_DEVICE explicit operator I() const noexcept {
    return static_cast<I>(address());
  }
  CUGUARD_HOST_DEVICE friend bool operator==(const void_pointer& a, std::nullptr_t) noexcept { return a.address() == 0; }
  CUGUARD_HOST_DEVICE friend bool operator!=(const void_pointer& a, std::nullptr_t) noexcept { return a.address() != 0; }
  CUGUARD_HOST_DEVICE friend bool operator==(const void_pointer& a, const void_pointer& b) noexcept {
    return a.address() == b.address();
  }
  CUGUARD_HOST_DEVICE friend bool operator!=(const void_pointer& a, const void_pointer& b) noexcept {
    return a.address() != b.address();
  }

 protected:
  CUGUARD_HOST_DEVICE std::uintptr_t address() const noexcept {
    return reinterpret_cast<std::uintptr_t>(b_.view.data()) + static_cast<std::uintptr_t>(b_.offset);
  }
  pointer_bounds<Byte> b_;
};
} // namespace detail

/// A checked void*: the bytes it may reach, from a void*, a T* or a ptr<T> as a void* is made
/// (a `void*` parameter or member, a table of addresses); `ptr_cast<T>(p)` gives the ptr<T> back,
/// bounded by the T that lie whole in those bytes.
template <>
class ptr<void> : public detail::void_pointer<unsigned char> {
  friend struct detail::ptr_access;

 public:
  using void_pointer::void_pointer;
};

/// A checked const void*: as ptr<void>, from pointers to const too.
template <>
class ptr<const void> : public detail::void_pointer<const unsigned char> {
  friend struct detail::ptr_access;

 public:
  using void_pointer::void_pointer;
  /// From a ptr<void>, as a void* converts to const void*.
  CUGUARD_HOST_DEVICE ptr(const ptr<void>& q) noexcept { b_ = detail::recast<const unsigned char>(detail::ptr_access::bounds(q)); }
};

/// What `reinterpret_cast<U*>(p)` did, checked: a pointer to the U at p's address, whose
/// accesses are checked against the U elements that lie whole in p's bounds (a float4 load
/// through a ptr<const float> of 10 elements reaches 2 of them), and against U's alignment: an
/// access through a cast of a misaligned address is reported as misaligned, where it would fault.
/// As with reinterpret_cast, const is kept (`ptr_cast<const float4>(x)` for a ptr<const float>).
template <class U, class T>
CUGUARD_HOST_DEVICE ptr<U> ptr_cast(const ptr<T>& p) noexcept {
  static_assert(std::is_const<U>::value || !std::is_const<T>::value, "cuguard::ptr_cast: casts away const");
  // No branch: a misaligned cast has no element to reach, and its accesses' reports say why.
  return detail::ptr_access::make(detail::recast<U>(detail::ptr_access::bounds(p)));
}

/// A pointer to the first element of `v`, bounded by the elements the view reaches (its first
/// to its last, strides included) with its label, lifetime and memory space.
template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE ptr<T> make_ptr(const checked_view<T, Rank, Index>& v) {
  std::int64_t reach = v.empty() ? 0 : 1;
  for (std::size_t r = 0; r < Rank && reach != 0; ++r) reach += static_cast<std::int64_t>(v.extent(r) - 1) * v.stride(r);
  return detail::ptr_access::make(
      detail::pointer_bounds<T>{detail::view_internals::assemble(v.data(), reach, detail::view_internals::meta(v)), 0});
}

/// The raw T* of a ptr, for code that needs one (an unchanged helper, a library call): accesses
/// through it are not checked. With checks off, `p` itself.
template <class T>
CUGUARD_HOST_DEVICE T* unchecked(const ptr<T>& p) noexcept {
  return reinterpret_cast<T*>(detail::ptr_access::address(p));
}

#else

/// With checks off a cuguard::ptr<T> is a T*: the same size, the same code.
template <class T>
using ptr = T*;

template <class U, class T>
CUGUARD_HOST_DEVICE constexpr U* ptr_cast(T* p) noexcept {
  static_assert(std::is_const<U>::value || !std::is_const<T>::value, "cuguard::ptr_cast: casts away const");
  return reinterpret_cast<U*>(p);
}

template <class T, std::size_t Rank, class Index>
CUGUARD_HOST_DEVICE constexpr T* make_ptr(const checked_view<T, Rank, Index>& v) noexcept {
  return v.data();
}

#endif

#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION
// The names of CUDA's vector types, which ptr_cast reads and writes through.
#  define CUGUARD_IMPL_VECTOR_TYPE_NAME(T)      \
    template <>                                 \
    struct type_name<T> {                       \
      static constexpr const char* value = #T;  \
    };
CUGUARD_IMPL_VECTOR_TYPE_NAME(float2)
CUGUARD_IMPL_VECTOR_TYPE_NAME(float4)
CUGUARD_IMPL_VECTOR_TYPE_NAME(double2)
CUGUARD_IMPL_VECTOR_TYPE_NAME(int2)
CUGUARD_IMPL_VECTOR_TYPE_NAME(int4)
CUGUARD_IMPL_VECTOR_TYPE_NAME(uint2)
CUGUARD_IMPL_VECTOR_TYPE_NAME(uint4)
CUGUARD_IMPL_VECTOR_TYPE_NAME(longlong2)
#  undef CUGUARD_IMPL_VECTOR_TYPE_NAME
#endif

/// A raw pointer as it is (so that `cuguard::unchecked(p)` compiles in both modes).
template <class T>
CUGUARD_HOST_DEVICE constexpr T* unchecked(T* p) noexcept {
  return p;
}

CUGUARD_IMPL_END_NAMESPACE
