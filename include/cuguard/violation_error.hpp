// SPDX-License-Identifier: Apache-2.0
// cuguard::violation_error, the exception a violation becomes, and the host-side policy.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/report_text.hpp>
#include <cuguard/violation.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Thrown for a violation found in host code (unless CUGUARD_ON_VIOLATION_ABORT is defined), and
/// by cuguard::check() for a violation recorded in device code.
class violation_error : public std::exception {
 public:
  /// `note`: extra lines for what() (for example that the CUDA context was lost).
  explicit violation_error(const violation& v, const char* note = "") : report_(v), what_(detail::report_text(v)) {
    what_ << note;
  }
  /// The record.
  const violation& report() const noexcept { return report_; }
  /// The formatted report (cuguard::format of report(), then the note).
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  violation report_;
  detail::text what_;
};

namespace detail {

/// Host policy for a violation found in host code: throw (the default), or print and abort
/// (CUGUARD_ON_VIOLATION_ABORT).
[[noreturn]] inline void raise_host(const violation& v) {
#if CUGUARD_IMPL_THROW
  throw violation_error(v);
#else
  std::fprintf(stderr, "%s\n", report_text(v).c_str());
  std::fflush(stderr);
  std::abort();
#endif
}

} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
