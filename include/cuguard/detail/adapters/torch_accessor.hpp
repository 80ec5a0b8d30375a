// SPDX-License-Identifier: Apache-2.0
// ATen's accessor family, checked: cuguard::torch::GenericPackedTensorAccessor and its aliases,
// and the TensorAccessor its operator[] returns, with ATen's template parameters and members.
// An extension adopts them by renaming torch:: to cuguard::torch:: in its kernels' parameter
// lists; the kernel bodies (acc[n][c], acc.size(d)) stay as they are. Included by
// <cuguard/torch.hpp>; needs ATen's <ATen/core/TensorAccessor.h>.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>

#include <ATen/core/TensorAccessor.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

// ATen declares RestrictPtrTraits for nvcc and hipcc only; under emulation the same kernel sources
// (torch::RestrictPtrTraits in their parameter lists and packed_accessor calls) are compiled by
// the host compiler, so cuguard gives ATen's namespace the same trait there.
#if CUGUARD_IMPL_EMULATION && !defined(__CUDACC__) && !defined(__HIPCC__)
namespace at {
template <typename T>
struct RestrictPtrTraits {
  typedef T* __restrict__ PtrType;
};
} // namespace at
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {
/// The index type of the checked view behind an accessor: index_t where it is signed, else int64.
template <class index_t>
using view_index_t = std::conditional_t<std::is_signed<index_t>::value, index_t, std::int64_t>;
template <class T, std::size_t N, class index_t>
using accessor_view = checked_view<T, N, view_index_t<index_t>>;
/// ATen's accessor of U converts to cuguard's of T: the same type, or U non-const and T const.
template <class U, class T>
inline constexpr bool accessor_converts = std::is_same<U, T>::value || std::is_same<const U, T>::value;
} // namespace torch_adapter
} // namespace detail

namespace torch {

using at::DefaultPtrTraits;
#if defined(__CUDACC__) || defined(__HIPCC__) || CUGUARD_IMPL_EMULATION
using at::RestrictPtrTraits;
#endif

/// What `acc[i]` of an accessor of rank N + 1 gives: ATen's TensorAccessor, checked. `Root` is
/// the rank of the packed accessor it came from (checked builds keep that accessor's view, so
/// that a report names the whole tensor and every index); a TensorAccessor of another Root
/// converts to it. With checks off: a pointer and the sizes and strides of the remaining
/// dimensions, as ATen's.
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t,
          std::size_t Root = N>
class TensorAccessor;

/// ATen's GenericPackedTensorAccessor, checked: an accessor passed to kernels by value. Made
/// from a tensor by packed_accessor32/64 (naming it), from ATen's own accessor (what
/// `x.packed_accessor32<...>()` gives: a kernel parameter of this type accepts it, and
/// cuguard::launch names it by its position), or from a checked_view. `index_t` may be signed or
/// unsigned, as ATen allows (`size_t`); checked builds check indices as signed 64-bit numbers, so
/// a negative index is reported as negative.
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
class GenericPackedTensorAccessor;

/// ATen's names for it.
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, std::int32_t>;
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, std::int64_t>;


#if CUGUARD_IMPL_CHECKS

// -----------------------------------------------------------------------------------------------
// Checks on: an accessor is a checked_view of the whole tensor and the indices subscripted so far
// -----------------------------------------------------------------------------------------------

template <class T, std::size_t N, template <class> class PtrTraits, class index_t, std::size_t Root>
class TensorAccessor {
  static_assert(N >= 1 && N <= Root, "TensorAccessor: N must be 1 to Root");
  template <class, std::size_t, template <class> class, class, std::size_t>
  friend class TensorAccessor;
  template <class, std::size_t, template <class> class, class>
  friend class GenericPackedTensorAccessor;

  static constexpr std::size_t done = Root - N; // dimensions subscripted so far
  using view_type = detail::torch_adapter::accessor_view<T, Root, index_t>;
  using first_index = cuguard::detail::first_index;

 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  /// A TensorAccessor of the rank-N view `v` itself.
  template <std::size_t R = Root, std::enable_if_t<R == N, int> = 0>
  CUGUARD_HOST_DEVICE explicit TensorAccessor(const view_type& v) noexcept : root_(v), done_{} {}

  /// The same elements as an accessor of another Root (a __device__ helper that takes
  /// `TensorAccessor<T, 1>` given `acc[n]`): the view of them, reached by select.
  template <std::size_t R, std::size_t Self = Root, std::enable_if_t<Self == N && R != N, int> = 0>
  CUGUARD_HOST_DEVICE TensorAccessor(const TensorAccessor<T, N, PtrTraits, index_t, R>& a) noexcept
      : root_(a.selected(std::make_index_sequence<R - N>{})), done_{} {}

  /// a[i]: the accessor of the remaining dimensions, or at the last one the element. Checks i
  /// against the extent of its dimension and reports the caller's line, the tensor and the
  /// indices so far.
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE decltype(auto) operator[](first_index i) { return subscript<T&>(i); }
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE decltype(auto) operator[](first_index i) const {
    return subscript<const T&>(i);
  }

  /// Size and stride (in elements) of dimension d of this accessor.
  CUGUARD_HOST_DEVICE index_t size(index_t d) const noexcept {
    return static_cast<index_t>(root_.extent(done + static_cast<std::size_t>(d)));
  }
  CUGUARD_HOST_DEVICE index_t stride(index_t d) const noexcept {
    return static_cast<index_t>(root_.stride(done + static_cast<std::size_t>(d)));
  }
  /// The address of the first element of this accessor (not checked: what it points to is).
  CUGUARD_HOST_DEVICE PtrType data() noexcept { return root_.data() + offset(std::make_index_sequence<done>{}); }
  CUGUARD_HOST_DEVICE const PtrType data() const noexcept {
    return root_.data() + offset(std::make_index_sequence<done>{});
  }
  /// Sizes and strides as an IntArrayRef (host code; int64 accessors only, as in ATen).
  template <class I = index_t, std::enable_if_t<std::is_same<I, std::int64_t>::value, int> = 0>
  c10::IntArrayRef sizes() const {
    return c10::IntArrayRef(cuguard::detail::view_internals::extents(root_) + done, N);
  }
  template <class I = index_t, std::enable_if_t<std::is_same<I, std::int64_t>::value, int> = 0>
  c10::IntArrayRef strides() const {
    return c10::IntArrayRef(cuguard::detail::view_internals::strides(root_) + done, N);
  }
  /// The tensor's label ("" if none).
  CUGUARD_HOST_DEVICE const char* label() const noexcept { return root_.label(); }

 private:
  template <std::size_t... J>
  CUGUARD_HOST_DEVICE TensorAccessor(const view_type& v, const std::int64_t* before, std::int64_t i,
                                     std::index_sequence<J...>) noexcept
      : root_(v), done_{before[J]..., i} {}

  template <std::size_t... J>
  CUGUARD_HOST_DEVICE std::int64_t offset(std::index_sequence<J...>) const noexcept {
    return (std::int64_t{0} + ... + (done_[J] * static_cast<std::int64_t>(root_.stride(J))));
  }

  template <std::size_t... J>
  CUGUARD_HOST_DEVICE checked_view<T, N, typename view_type::index_type> selected(std::index_sequence<J...>) const {
    if constexpr (sizeof...(J) == 0) {
      return root_;
    } else {
      auto v = root_.select(0, done_[0]);
      return TensorAccessor<T, N, PtrTraits, index_t, Root - 1>(v, done_ + 1)
          .selected(std::make_index_sequence<sizeof...(J) - 1>{});
    }
  }
  CUGUARD_HOST_DEVICE TensorAccessor(const view_type& v, const std::int64_t* indices) noexcept : root_(v) {
    for (std::size_t j = 0; j < done; ++j) done_[j] = indices[j];
  }

  template <class Ref>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE decltype(auto) subscript(const first_index& i) const {
    if constexpr (N == 1) {
      return static_cast<Ref>(element(i));
    } else {
      const std::int64_t idx[1] = {i.value};
      const typename view_type::index_type extent[1] = {root_.extent(done)};
      if (CUGUARD_IMPL_UNLIKELY(static_cast<std::uint64_t>(i.value) >= static_cast<std::uint64_t>(extent[0])))
        fail(i);
      cuguard::detail::assume_inside(idx, extent);
      using next = TensorAccessor<T, N - 1, PtrTraits, index_t, Root>;
      using result = std::conditional_t<std::is_const<std::remove_reference_t<Ref>>::value, const next, next>;
      return result(root_, done_, i.value, std::make_index_sequence<done>{});
    }
  }

  // The element at the indices so far and i: the view's own checked access.
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& element(const first_index& i) const {
    if constexpr (done == 0) {
      return root_(i);
    } else {
      return element(i, std::make_index_sequence<done - 1>{});
    }
  }
  template <std::size_t... J>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& element(const first_index& i, std::index_sequence<J...>) const {
    return root_(first_index(done_[0], i.where), done_[J + 1]..., i.value);
  }

  // A subscript out of its extent: the indices so far, i, then zeros for the dimensions not
  // subscripted yet (the report shows only the first done + 1).
  CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE void fail(const first_index& i) const {
    std::int64_t idx[Root] = {};
    for (std::size_t j = 0; j < done; ++j) idx[j] = done_[j];
    idx[done] = i.value;
    fail(i, idx, std::make_index_sequence<Root - 1>{});
  }
  template <std::size_t... J>
  CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE void fail(const first_index& i, const std::int64_t (&idx)[Root],
                                                           std::index_sequence<J...>) const {
    cuguard::detail::fail_access(root_, operation::subscript, 0, first_index(idx[0], i.where), idx[J + 1]...);
  }

  view_type root_;
  std::int64_t done_[done + 1]; // the indices subscripted so far (one more, so that none is empty)
};

template <class T, std::size_t N, template <class> class PtrTraits, class index_t>
class GenericPackedTensorAccessor : public TensorAccessor<T, N, PtrTraits, index_t, N> {
  using base = TensorAccessor<T, N, PtrTraits, index_t, N>;
  using view_type = detail::torch_adapter::accessor_view<T, N, index_t>;

 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  /// An accessor of a checked view's elements (its label, lifetime and memory space kept).
  CUGUARD_HOST_DEVICE GenericPackedTensorAccessor(const view_type& v) noexcept : base(v) {}

  /// ATen's accessor of the same type (or of non-const U for const T): its data, sizes and
  /// strides, bound to the tracked allocation they lie in where cuguard knows one. It has no
  /// name: cuguard::launch names it "argument <k> of <kernel>".
  template <class U, std::enable_if_t<detail::torch_adapter::accessor_converts<U, T>, int> = 0>
  GenericPackedTensorAccessor(const at::GenericPackedTensorAccessor<U, N, PtrTraits, index_t>& a,
                              cuda::std::source_location where = cuda::std::source_location::current())
      : base(of_aten(a, where)) {}

  /// The view behind the accessor.
  CUGUARD_HOST_DEVICE const view_type& view() const noexcept { return this->root_; }
  CUGUARD_HOST_DEVICE view_type& view() noexcept { return this->root_; }

  /// The accessor with dimensions a and b swapped (host code, as in ATen).
  GenericPackedTensorAccessor transpose(index_t a, index_t b) const {
    return GenericPackedTensorAccessor(this->root_.transpose(static_cast<std::size_t>(a), static_cast<std::size_t>(b)));
  }

 private:
  template <class A>
  static view_type of_aten(const A& a, const cuda::std::source_location& where) {
    std::int64_t extents[N];
    std::int64_t strides[N];
    for (std::size_t r = 0; r < N; ++r) {
      extents[r] = static_cast<std::int64_t>(a.size(static_cast<index_t>(r)));
      strides[r] = static_cast<std::int64_t>(a.stride(static_cast<index_t>(r)));
    }
    const bool empty = [&] {
      for (std::size_t r = 0; r < N; ++r)
        if (extents[r] == 0) return true;
      return false;
    }();
    view_type v(empty ? nullptr : const_cast<T*>(a.data()), extents, strides, nullptr, where);
    // Under emulation a CPU tensor is the emulated device's memory (as torch::view says).
    if (emulated && v.space() != memory_space::managed)
      cuguard::detail::view_internals::set_memory(v, memory_space::managed, 0);
    return v;
  }
};

#else // checks off: ATen's layout and arithmetic

template <class T, std::size_t N, template <class> class PtrTraits, class index_t, std::size_t Root>
class TensorAccessor {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  CUGUARD_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides) noexcept
      : data_(data), sizes_(sizes), strides_(strides) {}
  template <std::size_t R, std::size_t Self = Root, std::enable_if_t<Self == N && R != N, int> = 0>
  CUGUARD_HOST_DEVICE TensorAccessor(const TensorAccessor<T, N, PtrTraits, index_t, R>& a) noexcept
      : TensorAccessor(a.data_, a.sizes_, a.strides_) {}

  CUGUARD_HOST_DEVICE decltype(auto) operator[](index_t i) {
    if constexpr (N == 1) {
      return static_cast<T&>(data_[strides_[0] * i]);
    } else {
      return TensorAccessor<T, N - 1, PtrTraits, index_t, Root>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
    }
  }
  CUGUARD_HOST_DEVICE decltype(auto) operator[](index_t i) const {
    if constexpr (N == 1) {
      return static_cast<const T&>(data_[strides_[0] * i]);
    } else {
      return static_cast<const TensorAccessor<T, N - 1, PtrTraits, index_t, Root>>(
          TensorAccessor<T, N - 1, PtrTraits, index_t, Root>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1));
    }
  }
  CUGUARD_HOST_DEVICE index_t size(index_t d) const noexcept { return sizes_[d]; }
  CUGUARD_HOST_DEVICE index_t stride(index_t d) const noexcept { return strides_[d]; }
  CUGUARD_HOST_DEVICE PtrType data() noexcept { return data_; }
  CUGUARD_HOST_DEVICE const PtrType data() const noexcept { return data_; }
  template <class I = index_t, std::enable_if_t<std::is_same<I, std::int64_t>::value, int> = 0>
  c10::IntArrayRef sizes() const {
    return c10::IntArrayRef(sizes_, N);
  }
  template <class I = index_t, std::enable_if_t<std::is_same<I, std::int64_t>::value, int> = 0>
  c10::IntArrayRef strides() const {
    return c10::IntArrayRef(strides_, N);
  }
  CUGUARD_HOST_DEVICE constexpr const char* label() const noexcept { return ""; }

 private:
  template <class, std::size_t, template <class> class, class, std::size_t>
  friend class TensorAccessor;
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

template <class T, std::size_t N, template <class> class PtrTraits, class index_t>
class GenericPackedTensorAccessor {
  using view_type = detail::torch_adapter::accessor_view<T, N, index_t>;

 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  CUGUARD_HOST_DEVICE GenericPackedTensorAccessor(const view_type& v) noexcept : data_(v.data()) {
    for (std::size_t r = 0; r < N; ++r) {
      sizes_[r] = static_cast<index_t>(v.extent(r));
      strides_[r] = static_cast<index_t>(v.stride(r));
    }
  }
  template <class U, std::enable_if_t<detail::torch_adapter::accessor_converts<U, T>, int> = 0>
  GenericPackedTensorAccessor(const at::GenericPackedTensorAccessor<U, N, PtrTraits, index_t>& a,
                              cuda::std::source_location = cuda::std::source_location::current())
      : data_(const_cast<T*>(a.data())) {
    for (std::size_t r = 0; r < N; ++r) {
      sizes_[r] = a.size(static_cast<index_t>(r));
      strides_[r] = a.stride(static_cast<index_t>(r));
    }
  }

  // a[i] is ATen's: that of the TensorAccessor of the whole tensor.
  CUGUARD_HOST_DEVICE decltype(auto) operator[](index_t i) { return whole()[i]; }
  CUGUARD_HOST_DEVICE decltype(auto) operator[](index_t i) const { return static_cast<const whole_type>(whole())[i]; }
  CUGUARD_HOST_DEVICE index_t size(index_t d) const noexcept { return sizes_[d]; }
  CUGUARD_HOST_DEVICE index_t stride(index_t d) const noexcept { return strides_[d]; }
  CUGUARD_HOST_DEVICE PtrType data() noexcept { return data_; }
  CUGUARD_HOST_DEVICE const PtrType data() const noexcept { return data_; }
  template <class I = index_t, std::enable_if_t<std::is_same<I, std::int64_t>::value, int> = 0>
  c10::IntArrayRef sizes() const {
    return c10::IntArrayRef(sizes_, N);
  }
  template <class I = index_t, std::enable_if_t<std::is_same<I, std::int64_t>::value, int> = 0>
  c10::IntArrayRef strides() const {
    return c10::IntArrayRef(strides_, N);
  }
  CUGUARD_HOST_DEVICE constexpr const char* label() const noexcept { return ""; }
  GenericPackedTensorAccessor transpose(index_t a, index_t b) const {
    GenericPackedTensorAccessor t = *this;
    t.sizes_[a] = sizes_[b], t.sizes_[b] = sizes_[a];
    t.strides_[a] = strides_[b], t.strides_[b] = strides_[a];
    return t;
  }

 private:
  using whole_type = TensorAccessor<T, N, PtrTraits, index_t, N>;
  CUGUARD_HOST_DEVICE whole_type whole() const noexcept { return whole_type(data_, sizes_, strides_); }

  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

#endif

} // namespace torch

#if CUGUARD_IMPL_CHECKS
namespace detail {
/// cuguard::launch checks, stamps and names the view behind an accessor argument.
template <class T, std::size_t N, template <class> class PtrTraits, class index_t>
struct argument_view<torch::GenericPackedTensorAccessor<T, N, PtrTraits, index_t>> {
  static constexpr bool value = true;
  static auto& get(torch::GenericPackedTensorAccessor<T, N, PtrTraits, index_t>& a) noexcept { return a.view(); }
};
} // namespace detail
#endif

CUGUARD_IMPL_END_NAMESPACE
