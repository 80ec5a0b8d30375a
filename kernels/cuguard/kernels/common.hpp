// SPDX-License-Identifier: Apache-2.0
// What the kernels' host entry points share: argument_error and the checks behind its messages.
#pragma once

#include <cuguard/argument_error.hpp>
#include <cuguard/cuguard.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cuguard::kernels {

/// Thrown by a kernel's host entry point for an argument it cannot run with (cuguard's
/// argument_error). The message names the function, the argument, the dimension, the value and
/// what was expected, for example
/// `lstm_forward: h0 has shape [1, 32, 256], expected [2, 32, 256] (num_layers*num_directions = 2)`,
/// then on a line of its own the caller's position (`  at train.cu:88 in forward`).
using argument_error = cuguard::argument_error;

namespace impl {

template <class V>
struct is_view : std::false_type {};
template <class T, std::size_t R, class I>
struct is_view<checked_view<T, R, I>> : std::true_type {};

/// "[2, 3]"
template <class View>
std::string shape_of(const View& v) {
  std::string s = "[";
  for (std::size_t r = 0; r < View::rank(); ++r) s += (r ? ", " : "") + std::to_string(v.extent(r));
  return s + "]";
}
template <std::size_t N>
std::string shape_of(const std::int64_t (&extents)[N]) {
  std::string s = "[";
  for (std::size_t r = 0; r < N; ++r) s += (r ? ", " : "") + std::to_string(extents[r]);
  return s + "]";
}
template <class View>
std::string strides_of(const View& v) {
  std::string s = "[";
  for (std::size_t r = 0; r < View::rank(); ++r) s += (r ? ", " : "") + std::to_string(v.stride(r));
  return s + "]";
}

/// The entry point an argument check speaks for: its name and its caller's source position,
/// which every argument_error names on its last line, as a report does.
struct entry_point {
  const char* name;
  cuda::std::source_location where;
};

[[noreturn]] inline void fail(const entry_point& fn, const std::string& message) {
  throw argument_error(std::string(fn.name) + ": " + message, fn.where);
}

/// Kernels read and write device memory: a view of (pageable) host memory is refused here,
/// before any launch. Views whose space is unknown are let through.
template <class View>
void expect_device_memory(const entry_point& fn, const char* arg, const View& v) {
  if (v.space() == memory_space::host)
    fail(fn, std::string(arg) + " is in host memory; the kernel needs device memory (a device_buffer, or "
                                "pinned/managed memory)");
}

template <class View>
void expect_contiguous_argument(const entry_point& fn, const char* arg, const View& v) {
  if (!v.is_contiguous())
    fail(fn, std::string(arg) + " has shape " + shape_of(v) + " and strides " + strides_of(v) +
                 ", expected a contiguous (row-major) tensor: copy it into contiguous memory first");
}

template <class View, std::size_t N>
void expect_shape_argument(const entry_point& fn, const char* arg, const View& v, const std::int64_t (&expected)[N],
                           const std::string& why = {}) {
  static_assert(N == View::rank(), "expect_shape_argument: rank of the expected shape");
  for (std::size_t r = 0; r < N; ++r) {
    if (v.extent(r) != expected[r])
      fail(fn, std::string(arg) + " has shape " + shape_of(v) + ", expected " + shape_of(expected) +
                   (why.empty() ? std::string() : " (" + why + ")"));
  }
}

inline void expect_dim(const entry_point& fn, const char* arg, int dim, std::size_t rank) {
  if (dim < 0 || static_cast<std::size_t>(dim) >= rank)
    fail(fn, "dim " + std::to_string(dim) + " is out of range for " + arg + " of rank " + std::to_string(rank) +
                 " (expected 0 <= dim < " + std::to_string(rank) + ")");
}

/// Blocks for a grid-stride loop over `n` items of `per_block` each (at least 1, at most 65535).
inline unsigned blocks_for(std::int64_t n, std::int64_t per_block) {
  const std::int64_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, 65535));
}

/// Coordinates of the linear (row-major) position `linear` in a view's shape.
template <class View, std::size_t R>
CUGUARD_HOST_DEVICE inline void unravel(std::int64_t linear, const View& v, std::int64_t (&pos)[R]) {
  for (std::size_t r = R; r-- > 0;) {
    const std::int64_t e = v.extent(r);
    pos[r] = linear % e;
    linear /= e;
  }
}

} // namespace impl
} // namespace cuguard::kernels
