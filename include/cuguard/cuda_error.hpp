// SPDX-License-Identifier: Apache-2.0
// cuguard::cuda_error: a CUDA runtime error (or a failed emulated launch), naming what it follows.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/report/text.hpp>

#include <exception>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// A CUDA runtime error (or a failure of an emulated launch), naming the launch it follows.
class cuda_error : public std::exception {
 public:
  cuda_error(int code, const char* message) : code_(code), what_(message) {}
  /// The cudaError_t value (0 for failures of emulated launches that CUDA has no code for).
  int code() const noexcept { return code_; }
  /// "cuguard: <what>: CUDA error <name> (<description>)".
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  int code_;
  detail::text what_;
};

namespace detail {
/// Throws cuda_error for status `s`: "cuguard: <what>: CUDA error <name> (<description>)".
[[noreturn]] inline void throw_cuda(backend::status s, const text& what) {
  text message = "cuguard: ";
  message << what << ": CUDA error " << backend::error_name(s) << " (" << backend::error_string(s) << ")";
  throw cuda_error(s, message.c_str());
}
} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
