// SPDX-License-Identifier: Apache-2.0
// cuguard::argument_error: an argument cuguard cannot make a view of or run with.
#pragma once

#include <cuguard/config.hpp>

#include <cuda/std/source_location>

#include <stdexcept>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Thrown in host code for an argument cuguard cannot make a view of or run with: a DLPack
/// tensor of another dtype or rank, a kernel input of the wrong shape. The message names the
/// argument, what it is and what was expected ("'x' has dtype float16, expected float32"), then,
/// on a line of its own, the caller's position ("  at train.cu:88 in forward"). It is a
/// std::invalid_argument (a ValueError where pybind11 translates it). Unlike violation_error it
/// carries no record: nothing was accessed.
class argument_error : public std::invalid_argument {
 public:
  argument_error(const std::string& message, const cuda::std::source_location& where)
      : std::invalid_argument(message + "\n  at " + where.file_name() + ":" + std::to_string(where.line()) + " in " +
                              where.function_name()),
        where_(where) {}

  /// The caller's position, as the message's last line gives it.
  const cuda::std::source_location& where() const noexcept { return where_; }

 private:
  cuda::std::source_location where_;
};

namespace detail {
/// A tensor argument `label` cuguard cannot make a view of: argument_error("'label' " + message)
/// at `where`. The one path of every adapter (DLPack, Torch) for a bad tensor.
[[noreturn]] inline void bad_tensor(const char* label, const std::string& message, const cuda::std::source_location& where) {
  throw argument_error(std::string("'") + (label ? label : "") + "' " + message, where);
}
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
