// SPDX-License-Identifier: Apache-2.0
// A checked view of an at::Tensor for cuguard::torch: the tensor's checks (defined, strided,
// dtype, rank, device, strides, storage reach), each failure an argument_error naming it
// (detail::bad_tensor, as DLPack's).
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/ptr.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/adapters/torch_accessor.hpp>
#include <cuguard/detail/adapters/torch_errors.hpp>
#include <cuguard/detail/adapters/torch_storage.hpp>
#include <cuguard/detail/adapters/torch_tensor.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>

#include <ATen/ATen.h>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// What a view of any element type and rank checks of a tensor first: defined, strided, of
/// dtype `expected`, of `rank` dimensions, on a device this build's kernels reach.
inline void check_tensor(const at::Tensor& t, const char* label, c10::ScalarType expected, std::int64_t rank,
                         const cuda::std::source_location& where) {
  if (!t.defined()) bad_tensor(label, "is an undefined tensor", where);
  if (t.layout() != c10::kStrided || !t.has_storage()) {
    std::ostringstream layout;
    layout << t.layout();
    bad_tensor(label, "has layout " + layout.str() + ", expected a strided tensor", where);
  }
  if (t.scalar_type() != expected)
    bad_tensor(label, std::string("has dtype ") + c10::toString(t.scalar_type()) + ", expected " + c10::toString(expected),
               where);
  if (t.dim() != rank)
    bad_tensor(label, "has " + std::to_string(t.dim()) + " dimensions, expected " + std::to_string(rank), where);
#if CUGUARD_IMPL_EMULATION
  if (!t.is_cpu())
    bad_tensor(label, "is on " + t.device().str() + ", expected a CPU tensor: this build runs kernels on CPU threads (emulation)",
               where);
#else
  if (!t.is_cpu() && !t.is_cuda()) bad_tensor(label, "is on " + t.device().str() + ", expected a CUDA or CPU tensor", where);
#endif
}

/// A tensor with elements whose largest element offset is `largest`: it must lie inside the
/// storage (of elements of `element_bytes`).
inline void check_reach(const at::Tensor& t, const char* label, std::uint64_t largest, std::size_t element_bytes,
                        const cuda::std::source_location& where) {
  const auto offset = static_cast<std::uint64_t>(t.storage_offset());
  const std::uint64_t held = t.storage().nbytes() / element_bytes;
  if (largest >= held || offset > held - 1 - largest)
    bad_tensor(label, "reaches element " + std::to_string(offset + largest) + " of its storage, which holds " +
                   std::to_string(held) + " elements (storage_offset " + std::to_string(offset) + ", sizes " +
                   list_of(t.sizes()) + ", strides " + list_of(t.strides()) + ")",
               where);
}

/// view()'s checks and view, a bad tensor reported as argument_error. A report device code
/// recorded and nothing read is raised first (an earlier kernel's, launched with <<<>>> on a
/// GPU: host_hooks::unread_report), as the next launch's arguments are made.
template <class T, std::size_t Rank, class Index>
checked_view<T, Rank, Index> view_of(const at::Tensor& t, const char* label, const cuda::std::source_location& where) {
  raise_unread_report();
  check_tensor(t, label, scalar_type_of<std::remove_cv_t<T>>::value, static_cast<std::int64_t>(Rank), where);
  std::int64_t extents[Rank];
  std::int64_t strides[Rank];
  // The largest element offset from the first (saturated: a storage bounds the answer anyway).
  std::uint64_t largest = 0;
  bool empty = false;
  for (std::size_t r = 0; r < Rank; ++r) {
    extents[r] = t.size(static_cast<std::int64_t>(r));
    strides[r] = t.stride(static_cast<std::int64_t>(r));
    if (strides[r] < 0)
      bad_tensor(label, "has stride " + std::to_string(strides[r]) + " in dim " + std::to_string(r) +
                     ": negative strides are not supported",
                 where);
    empty |= extents[r] == 0;
    largest = cuguard::detail::add_reach(largest, static_cast<std::uint64_t>(extents[r]), static_cast<std::uint64_t>(strides[r]));
  }
  if (!empty) check_reach(t, label, largest, sizeof(T), where);
  // Under emulation a CPU tensor is memory both host code and the emulated kernels may touch.
  const memory_space space = emulated ? memory_space::managed : t.is_cuda() ? memory_space::device : memory_space::host;
  const int device = emulated ? 0 : t.is_cuda() ? t.device().index() : -1;
#if CUGUARD_IMPL_CHECKS
  track_storage(t, label, space, device);
#endif
#if CUGUARD_IMPL_TORCH_CUDA
  track_cuda_storage(t, label, device);
#endif
  T* data = empty ? nullptr : static_cast<T*>(const_cast<void*>(data_of<T>(t, 0)));
  checked_view<T, Rank, Index> v(data, extents, strides, label, where);
  cuguard::detail::view_internals::set_memory(v, space, device);
  return v;
}

/// torch::ptr's checks and pointer: the tensor checked as a view of its own rank, then a pointer
/// to its first element bounded by the elements its sizes and strides reach.
template <class T>
cuguard::ptr<T> pointer_of(const at::Tensor& t, const char* label, const cuda::std::source_location& where) {
  check_tensor(t, label, scalar_type_of<std::remove_cv_t<T>>::value, t.defined() ? t.dim() : 0, where);
  std::uint64_t largest = 0;
  bool empty = false;
  for (std::int64_t r = 0; r < t.dim(); ++r) {
    if (t.stride(r) < 0)
      bad_tensor(label, "has stride " + std::to_string(t.stride(r)) + " in dim " + std::to_string(r) +
                     ": negative strides are not supported",
                 where);
    empty |= t.size(r) == 0;
    largest = cuguard::detail::add_reach(largest, static_cast<std::uint64_t>(t.size(r)), static_cast<std::uint64_t>(t.stride(r)));
  }
  if (empty) return cuguard::make_ptr(checked_view<T, 1>(static_cast<T*>(nullptr), {0}, label, where));
  return cuguard::make_ptr(view_of<T, 1, std::int64_t>(t.as_strided({static_cast<std::int64_t>(largest + 1)}, {1}), label, where));
}

/// view() for an accessor with index_t: a 32-bit accessor needs every offset to fit 32 bits.
template <class T, std::size_t N, class index_t>
accessor_view<T, N, index_t> accessor_view_of(const at::Tensor& t, const char* label,
                                              const cuda::std::source_location& where) {
  using VI = view_index_t<index_t>;
  if (t.defined() && t.numel() > static_cast<std::int64_t>(cuguard::detail::max_of<VI>))
    bad_tensor(label, "has " + std::to_string(t.numel()) + " elements, more than an accessor with " +
                   std::to_string(8 * sizeof(index_t)) + "-bit indices can reach (packed_accessor64)",
               where);
  return view_of<T, N, VI>(t, label, where);
}

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
