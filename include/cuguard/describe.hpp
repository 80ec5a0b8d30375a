// SPDX-License-Identifier: Apache-2.0
// describe(view) and operator<<: label, type, shape, strides, memory space and contiguity on one line.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/fail/view_fields.hpp> // fill_type
#include <cuguard/detail/report/text_parts.hpp> // text, append_shape

#include <cstdint>
#include <iosfwd>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Name of a memory space: "host", "pinned host", "device", "managed", "shared" or "unknown".
inline const char* to_string(memory_space s) noexcept {
  switch (s) {
    case memory_space::host: return "host";
    case memory_space::pinned: return "pinned host";
    case memory_space::device: return "device";
    case memory_space::managed: return "managed";
    case memory_space::shared: return "shared";
    case memory_space::unknown: break;
  }
  return "unknown";
}

/// One line for the habit of printing every tensor's shape, device and contiguity:
/// `'x' float[2, 3], strides [3, 1], contiguous, device 0 memory`. With checks off there is no
/// label or memory space to print: `float[2, 3], strides [3, 1], contiguous`. A std::string:
/// include <string> where you call it (this header parses <iosfwd> alone).
template <class T, std::size_t Rank, class Index>
detail::host_string<T> describe(const checked_view<T, Rank, Index>& v) {
  detail::text out;
  if (v.label()[0] != '\0') out << '\'' << v.label() << "' ";
  char type[32];
  detail::fill_type<T>(type);
  std::int64_t values[Rank];
  for (std::size_t r = 0; r < Rank; ++r) values[r] = v.extent(r);
  detail::append_shape(out, type, values, static_cast<int>(Rank));
  for (std::size_t r = 0; r < Rank; ++r) values[r] = v.stride(r);
  out << ", strides [";
  detail::append_list(out, values, static_cast<int>(Rank));
  out << (v.is_contiguous() ? "], contiguous" : "], not contiguous");
  if (checks_enabled) {
    if (v.space() == memory_space::unknown) {
      out << ", memory space unknown";
    } else {
      out << ", " << to_string(v.space());
      if (v.device() >= 0) out << ' ' << v.device();
      out << " memory";
    }
  }
  return detail::host_string<T>(out.c_str(), out.size());
}

/// Writes describe(v) (to any std::ostream: the stream's header is the caller's).
template <class Char, class Traits, class T, std::size_t Rank, class Index>
std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& os, const checked_view<T, Rank, Index>& v) {
  return os << describe(v);
}

CUGUARD_IMPL_END_NAMESPACE
