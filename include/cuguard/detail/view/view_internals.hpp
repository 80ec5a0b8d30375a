// SPDX-License-Identifier: Apache-2.0
// The one door through which adapters of other frameworks' tensors reach a view's parts.
#pragma once
// Part of <cuguard/checked_view.hpp>, which includes it after the class.


CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
/// What adapters of other frameworks' tensors set that views cannot find out themselves.
struct view_internals {
  /// The memory space and device of a view's memory (checks on; a no-op otherwise): under
  /// emulation the torch adapter says that a CPU tensor is the emulated device's memory.
  template <class T, std::size_t Rank, class Index>
  static void set_memory(checked_view<T, Rank, Index>& v, memory_space space, int device) noexcept {
#if CUGUARD_IMPL_CHECKS
    v.meta_.space = space;
    v.meta_.device = device;
#else
    (void)v, (void)space, (void)device;
#endif
  }
  /// The extents and the strides as arrays (ATen-style accessors give them as sizes(), strides()).
  template <class T, std::size_t Rank, class Index>
  CUGUARD_HOST_DEVICE static constexpr const Index* extents(const checked_view<T, Rank, Index>& v) noexcept {
    return v.extents_;
  }
  template <class T, std::size_t Rank, class Index>
  CUGUARD_HOST_DEVICE static constexpr const Index* strides(const checked_view<T, Rank, Index>& v) noexcept {
    return v.strides_;
  }
  /// The metadata of a view (with checks off, none: the defaults).
  template <class T, std::size_t Rank, class Index>
  CUGUARD_HOST_DEVICE static constexpr view_meta meta(const checked_view<T, Rank, Index>& v) noexcept {
    return v.meta();
  }
  /// A rank-1 view of `extent` elements at `data`, stride 1, with the metadata `m`, assembled
  /// without checks (cuguard::ptr's bounds, which its conversions compute).
  template <class T, class Index = std::int64_t>
  CUGUARD_HOST_DEVICE static constexpr checked_view<T, 1, Index> assemble(T* data, Index extent,
                                                                         const view_meta& m) noexcept {
    const Index extents[1] = {extent};
    const Index strides[1] = {1};
    return checked_view<T, 1, Index>(raw_tag{}, data, extents, strides, m);
  }
};
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
