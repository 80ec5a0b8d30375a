// SPDX-License-Identifier: Apache-2.0
// A checked view of a DLPack tensor: the DLPack header the program has, the element types' type
// codes, and the checks of a tensor's fields against the view asked for (each failure a
// detail::bad_tensor argument_error naming the tensor).
#pragma once

#include <cuguard/argument_error.hpp>
#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/type_name.hpp>

// The DLPack header the program already has (PyTorch's ATen/dlpack.h, included first, guards
// itself as dlpack/dlpack.h does), else dlpack/dlpack.h, else PyTorch's copy.
#if !defined(DLPACK_DLPACK_H_)
#  if __has_include(<dlpack/dlpack.h>)
#    include <dlpack/dlpack.h>
#  elif __has_include(<ATen/dlpack.h>)
#    include <ATen/dlpack.h>
#  else
#    error "cuguard/dlpack.hpp needs dlpack.h (Debian: libdlpack-dev; PyTorch ships ATen/dlpack.h)"
#  endif
#endif

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#if __has_include(<cuda_fp16.h>)
#  include <cuda_fp16.h>
#endif
#if __has_include(<cuda_bf16.h>)
#  include <cuda_bf16.h>
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The dlpack.h included: its version as major and minor (0.6 defines DLPACK_VERSION 60 only).
#if defined(DLPACK_MAJOR_VERSION)
inline constexpr unsigned dlpack_header_major = DLPACK_MAJOR_VERSION;
inline constexpr unsigned dlpack_header_minor = DLPACK_MINOR_VERSION;
#else
inline constexpr unsigned dlpack_header_major = 0;
inline constexpr unsigned dlpack_header_minor = DLPACK_VERSION / 10;
#endif

/// DLPack 1.2 made strides mandatory for ndim != 0; before, null strides meant a compact
/// row-major tensor.
constexpr bool dlpack_null_strides_allowed(unsigned major, unsigned minor) noexcept {
  return major == 0 || (major == 1 && minor < 2);
}

/// The DLPack type code and bits of T (lanes are always 1 for a view); code -1 for a type DLPack
/// cannot name. bool is kDLBool where the header has it (0.8 and later), kDLUInt 8 bits before.
template <class T>
struct dlpack_type {
  using V = std::remove_cv_t<T>;
  static constexpr int code = std::is_same<V, bool>::value
#if defined(DLPACK_MAJOR_VERSION) || DLPACK_VERSION >= 80
                                  ? static_cast<int>(kDLBool)
#else
                                  ? static_cast<int>(kDLUInt)
#endif
                              : std::is_floating_point<V>::value ? static_cast<int>(kDLFloat)
                              : std::is_integral<V>::value && std::is_signed<V>::value ? static_cast<int>(kDLInt)
                              : std::is_integral<V>::value ? static_cast<int>(kDLUInt)
                                                           : -1;
  static constexpr int bits = static_cast<int>(sizeof(V) * 8);
};
#if __has_include(<cuda_fp16.h>)
template <>
struct dlpack_type<__half> {
  static constexpr int code = kDLFloat, bits = 16;
};
template <>
struct dlpack_type<const __half> : dlpack_type<__half> {};
#endif
#if __has_include(<cuda_bf16.h>)
template <>
struct dlpack_type<__nv_bfloat16> {
  static constexpr int code = kDLBfloat, bits = 16;
};
template <>
struct dlpack_type<const __nv_bfloat16> : dlpack_type<__nv_bfloat16> {};
#endif

/// "float32", "int64", "bfloat16", "bool" (lanes > 1: "float32x4"); "type code 9 of 8 bits" for a
/// code this header does not name.
inline std::string dlpack_dtype_name(int code, int bits, int lanes) {
  std::string name;
  switch (code) {
    case kDLInt: name = "int" + std::to_string(bits); break;
    case kDLUInt: name = "uint" + std::to_string(bits); break;
    case kDLFloat: name = "float" + std::to_string(bits); break;
    case kDLBfloat: name = "bfloat" + std::to_string(bits); break;
#if defined(DLPACK_MAJOR_VERSION) || DLPACK_VERSION >= 80
    case kDLBool: name = bits == 8 ? "bool" : "bool of " + std::to_string(bits) + " bits"; break;
#endif
    default: name = "type code " + std::to_string(code) + " of " + std::to_string(bits) + " bits"; break;
  }
  return lanes == 1 ? name : name + "x" + std::to_string(lanes);
}

inline const char* dlpack_device_name(int type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    default: return nullptr;
  }
}

/// Where cuguard knows the memory of a DLPack tensor's view (checks on: tracked allocations, and
/// the CUDA runtime or the emulated allocator): it must be what the tensor's device says.
inline void check_dlpack_memory(const DLTensor& t, const char* label, const char* device, memory_space space,
                                int data_device, const cuda::std::source_location& where) {
  const auto type = t.device.device_type;
  const bool agrees = space == memory_space::unknown || space == memory_space::managed ||
                      (space == memory_space::device && type == kDLCUDA) ||
                      (space == memory_space::host && type == kDLCPU) ||
                      (space == memory_space::pinned && (type == kDLCUDAHost || type == kDLCPU));
  if (!agrees)
    bad_tensor(label, std::string("says ") + device + " device " + std::to_string(t.device.device_id) + ", but its data is " +
                   (space == memory_space::device ? "device memory"
                    : space == memory_space::host ? "pageable host memory"
                                                  : "pinned host memory"),
               where);
  if (t.device.device_type == kDLCUDA && data_device >= 0 && data_device != t.device.device_id)
    bad_tensor(label, "says kDLCUDA device " + std::to_string(t.device.device_id) + ", but its data is on device " +
                   std::to_string(data_device),
               where);
}

/// Checks what a view cannot check itself (rank, dtype, device type, offset, strides, the
/// read-only flag) and returns the view; the view's construction then checks the shape (extents
/// and strides not negative, offsets that fit) and, for tracked memory, the allocation, and this
/// function the memory space against the device the tensor names.
template <class T, std::size_t Rank, class Index>
checked_view<T, Rank, Index> view_of_dlpack(const DLTensor& t, const char* label, bool read_only,
                                            bool null_strides_allowed, const cuda::std::source_location& where) {
  if (t.ndim != static_cast<std::int32_t>(Rank))
    bad_tensor(label, "has " + std::to_string(t.ndim) + " dimensions, expected " + std::to_string(Rank), where);
  using dtype = dlpack_type<T>;
  static_assert(dtype::code >= 0, "make_view(DLTensor): DLPack has no type code for this element type");
  if (t.dtype.code != dtype::code || t.dtype.bits != dtype::bits || t.dtype.lanes != 1)
    bad_tensor(label, "has dtype " + dlpack_dtype_name(t.dtype.code, t.dtype.bits, t.dtype.lanes) +
                   ", expected " + dlpack_dtype_name(dtype::code, dtype::bits, 1) + " (a view of " +
                   type_name<std::remove_cv_t<T>>::value + ")",
               where);
  const char* device = dlpack_device_name(static_cast<int>(t.device.device_type));
  if (device == nullptr)
    bad_tensor(label, "is on DLPack device type " + std::to_string(static_cast<int>(t.device.device_type)) +
                   ", expected kDLCPU, kDLCUDA, kDLCUDAHost or kDLCUDAManaged",
               where);
  if (read_only && !std::is_const<T>::value)
    bad_tensor(label, std::string("is read-only (DLPACK_FLAG_BITMASK_READ_ONLY): view it as const ") +
                   type_name<std::remove_cv_t<T>>::value,
               where);
  if (t.byte_offset % sizeof(T) != 0)
    bad_tensor(label, "has byte_offset " + std::to_string(t.byte_offset) +
                   ", not a multiple of the element size " + std::to_string(sizeof(T)),
               where);
  if (Rank > 0 && t.shape == nullptr) bad_tensor(label, "has no shape (null) for " + std::to_string(Rank) + " dimensions", where);
  std::int64_t extents[Rank];
  std::int64_t strides[Rank];
  for (std::size_t r = 0; r < Rank; ++r) extents[r] = t.shape[r];
  if (t.strides == nullptr && !null_strides_allowed)
    bad_tensor(label, "has null strides, which DLPack 1.2 and later do not allow for ndim != 0", where);
  for (std::size_t r = 0; t.strides != nullptr && r < Rank; ++r) {
    strides[r] = t.strides[r];
    if (strides[r] < 0)
      bad_tensor(label, "has stride " + std::to_string(strides[r]) + " in dim " + std::to_string(r) +
                     ": negative strides are not supported (make a contiguous copy)",
                 where);
  }
  T* data = t.data == nullptr ? nullptr : reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
  // The view's own checks (violation_error): extents, strides, offsets, null data, allocation.
  // Null strides: the row-major view.
  const checked_view<T, Rank, Index> v = t.strides == nullptr ? checked_view<T, Rank, Index>(data, extents, label, where)
                                                              : checked_view<T, Rank, Index>(data, extents, strides, label, where);
  check_dlpack_memory(t, label, device, v.space(), v.device(), where);
  return v;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
