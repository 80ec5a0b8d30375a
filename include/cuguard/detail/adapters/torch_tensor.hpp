// SPDX-License-Identifier: Apache-2.0
// What cuguard::torch reads of an at::Tensor: the ScalarType of a view's element type, the
// address of its first element, its storage's DataPtr, and its sizes as text.
#pragma once

#include <cuguard/config.hpp>

#include <ATen/ATen.h>
#if __has_include(<cuda_fp16.h>)
#  include <cuda_fp16.h>
#endif
#if __has_include(<cuda_bf16.h>)
#  include <cuda_bf16.h>
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// The ScalarType of a tensor whose elements a view of T reads.
template <class T>
struct scalar_type_of;
#define CUGUARD_IMPL_SCALAR(T, S)                                \
  template <>                                                    \
  struct scalar_type_of<T> {                                     \
    static constexpr c10::ScalarType value = c10::ScalarType::S; \
  };
CUGUARD_IMPL_SCALAR(float, Float)
CUGUARD_IMPL_SCALAR(double, Double)
CUGUARD_IMPL_SCALAR(at::Half, Half)
CUGUARD_IMPL_SCALAR(at::BFloat16, BFloat16)
CUGUARD_IMPL_SCALAR(bool, Bool)
CUGUARD_IMPL_SCALAR(std::int8_t, Char)
CUGUARD_IMPL_SCALAR(std::uint8_t, Byte)
CUGUARD_IMPL_SCALAR(std::int16_t, Short)
CUGUARD_IMPL_SCALAR(std::int32_t, Int)
CUGUARD_IMPL_SCALAR(std::int64_t, Long)
#if __has_include(<cuda_fp16.h>)
CUGUARD_IMPL_SCALAR(__half, Half)
#endif
#if __has_include(<cuda_bf16.h>)
CUGUARD_IMPL_SCALAR(__nv_bfloat16, BFloat16)
#endif
#undef CUGUARD_IMPL_SCALAR

/// "[2, 3]"
inline std::string list_of(c10::IntArrayRef values) {
  std::string s = "[";
  for (std::size_t r = 0; r < values.size(); ++r) s += (r ? ", " : "") + std::to_string(values[r]);
  return s + "]";
}

/// The DataPtr of a storage, to wrap its deleter: without the checks a newer Torch makes on
/// mutable access (which would materialize a copy-on-write storage); older Torch (1.x) has only
/// data_ptr().
template <class Storage>
auto mutable_data_ptr_of(Storage& s, int) -> decltype(s._mutable_data_ptr_no_checks()) {
  return s._mutable_data_ptr_no_checks();
}
template <class Storage>
c10::DataPtr& mutable_data_ptr_of(Storage& s, long) {
  return s.data_ptr();
}

/// The address of a tensor's first element, for a view of T: read-only access for a const T
/// where Torch has it (const_data_ptr(), which leaves a copy-on-write tensor as it is).
template <class T, class Tensor>
auto data_of(const Tensor& t, int) -> decltype(t.const_data_ptr()) {
  if constexpr (std::is_const<T>::value) return t.const_data_ptr();
  else return t.data_ptr();
}
template <class T, class Tensor>
const void* data_of(const Tensor& t, long) {
  return t.data_ptr();
}

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
