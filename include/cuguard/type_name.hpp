// SPDX-License-Identifier: Apache-2.0
// cuguard::type_name<T>: the element type's name in reports ("float[1024, 256]").
#pragma once

#include <cuguard/config.hpp>

#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Name of an element type in reports. Specialize it for your own types:
/// `template <> struct cuguard::type_name<my_pair> { static constexpr const char* value = "my_pair"; };`
template <class T>
struct type_name {
  static constexpr const char* value = "element";
};

#define CUGUARD_IMPL_TYPE_NAME(T, NAME)           \
  template <>                                     \
  struct type_name<T> {                           \
    static constexpr const char* value = NAME;    \
  };
CUGUARD_IMPL_TYPE_NAME(float, "float")
CUGUARD_IMPL_TYPE_NAME(double, "double")
CUGUARD_IMPL_TYPE_NAME(bool, "bool")
CUGUARD_IMPL_TYPE_NAME(char, "char")
CUGUARD_IMPL_TYPE_NAME(signed char, "int8")
CUGUARD_IMPL_TYPE_NAME(unsigned char, "uint8")
CUGUARD_IMPL_TYPE_NAME(short, "int16")
CUGUARD_IMPL_TYPE_NAME(unsigned short, "uint16")
CUGUARD_IMPL_TYPE_NAME(int, "int32")
CUGUARD_IMPL_TYPE_NAME(unsigned int, "uint32")
CUGUARD_IMPL_TYPE_NAME(long, "int64")
CUGUARD_IMPL_TYPE_NAME(unsigned long, "uint64")
CUGUARD_IMPL_TYPE_NAME(long long, "int64")
CUGUARD_IMPL_TYPE_NAME(unsigned long long, "uint64")
#undef CUGUARD_IMPL_TYPE_NAME

namespace detail {
/// Whether T is const: reports say "const float" for a view of const float.
template <class T>
inline constexpr bool is_const_element = std::is_const<T>::value;
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
