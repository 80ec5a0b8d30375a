// SPDX-License-Identifier: Apache-2.0
// cuguard::cuda_error: a CUDA runtime error (or a failed emulated launch), naming what it follows.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/backend.hpp>

#include <stdexcept>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// A CUDA runtime error (or a failure of an emulated launch), naming the launch it follows.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The cudaError_t value (0 for failures of emulated launches that CUDA has no code for).
  int code() const noexcept { return code_; }

 private:
  int code_;
};

namespace detail {
/// Throws cuda_error for status `s`: "cuguard: <what>: CUDA error <name> (<description>)".
[[noreturn]] inline void throw_cuda(backend::status s, const std::string& what) {
  throw cuda_error(s, "cuguard: " + what + ": CUDA error " + backend::error_name(s) + " (" +
                          backend::error_string(s) + ")");
}
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
