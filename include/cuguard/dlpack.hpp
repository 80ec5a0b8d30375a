// SPDX-License-Identifier: Apache-2.0
// Views of DLPack tensors: `cuguard::make_view<const float, 2>(dl_tensor, "x")`, with every field
// checked against the view asked for. Uses the dlpack.h the program has (dlpack/dlpack.h, Debian:
// libdlpack-dev; or PyTorch's ATen/dlpack.h); cuguard ships none. Not included by <cuguard/cuguard.hpp>.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/adapters/dlpack_view.hpp> // the DLPack header, and the checks of a tensor

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// A checked view of a DLPack tensor: `make_view<const float, 2>(dl, "x")`. Checks, with an
/// argument_error naming the tensor, the value and what was expected: the number of dimensions
/// (Rank), the dtype (code, bits and one lane for T), the device type (kDLCPU, kDLCUDA,
/// kDLCUDAHost or kDLCUDAManaged) and, where cuguard knows the memory (checks on), that the data
/// is where the device says; byte_offset (a multiple of sizeof(T)); strides (not negative; null
/// means row-major before DLPack 1.2, as this dlpack.h's version says). The view's own checks
/// follow (violation_error): extents not negative, offsets that fit Index, no null data under
/// elements, inside its tracked allocation. The tensor's shape and strides are copied; its data
/// and `label` must outlive the view. A plain DLTensor has no read-only flag: view one that may
/// be read-only as const T.
template <class T, std::size_t Rank, class Index = std::int64_t>
checked_view<T, Rank, Index> make_view(const DLTensor& tensor, const char* label,
                                       cuda::std::source_location where = cuda::std::source_location::current()) {
  return detail::view_of_dlpack<T, Rank, Index>(
      tensor, label, false, detail::dlpack_null_strides_allowed(detail::dlpack_header_major, detail::dlpack_header_minor),
      where);
}

#if defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1
/// A checked view of a versioned DLPack tensor (DLPack 1.0 and later): as for a DLTensor, and
/// its major version must be this header's (another major version has another layout: only
/// its deleter may be called), its null strides are judged by its own version, and a tensor
/// flagged DLPACK_FLAG_BITMASK_READ_ONLY can only be viewed as const T. The view does not own
/// the tensor: call its deleter when done with both.
template <class T, std::size_t Rank, class Index = std::int64_t>
checked_view<T, Rank, Index> make_view(const DLManagedTensorVersioned& tensor, const char* label,
                                       cuda::std::source_location where = cuda::std::source_location::current()) {
  if (tensor.version.major != DLPACK_MAJOR_VERSION)
    detail::bad_tensor(label, "has DLPack version " + std::to_string(tensor.version.major) + "." +
                           std::to_string(tensor.version.minor) + ", but this dlpack.h is " +
                           std::to_string(DLPACK_MAJOR_VERSION) + "." + std::to_string(DLPACK_MINOR_VERSION) +
                           ": another major version has another layout (call only its deleter)",
                       where);
  return detail::view_of_dlpack<T, Rank, Index>(
      tensor.dl_tensor, label, (tensor.flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0,
      detail::dlpack_null_strides_allowed(tensor.version.major, tensor.version.minor), where);
}
#endif

CUGUARD_IMPL_END_NAMESPACE
