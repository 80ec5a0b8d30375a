// SPDX-License-Identifier: Apache-2.0
// What cuguard.torch calls after each call of a checked extension's functions (and at exit): the
// report its kernels recorded and nothing raised yet, taken as text for Python to raise
// (IndexError, RuntimeError). The extern "C" function that Python finds is defined by the one
// translation unit cuguard.torch adds to the extension (torch_sanitize.hpp under emulation,
// torch_gpu_unit.hpp on a GPU), each with its own name.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/check.hpp>
#include <cuguard/violation_error.hpp>

#include <cstddef>
#include <cstring>
#include <exception>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// The report pending, its text copied into `text` (at most `size` bytes with the final 0): with
/// `wait`, after the device's work is done (check()), else only one already recorded (poll(): one
/// read of the channel's flag where none is). 1 where Python raises it as IndexError (out of
/// bounds), 2 as RuntimeError, 0 where none is pending.
inline int take_report(char* text, std::size_t size, bool wait) {
  const auto copy = [&](const char* what) {
    if (size == 0) return;
    const std::size_t n = std::strlen(what) < size - 1 ? std::strlen(what) : size - 1;
    std::memcpy(text, what, n);
    text[n] = '\0';
  };
  try {
    if (wait) ::cuguard::check();
    else ::cuguard::poll();
  } catch (const ::cuguard::violation_error& e) {
    copy(e.what());
    const ::cuguard::violation_kind k = e.report().kind;
    return k == ::cuguard::violation_kind::out_of_bounds || k == ::cuguard::violation_kind::index_overflow ? 1 : 2;
  } catch (const std::exception& e) {
    copy(e.what());
    return 2;
  }
  return 0;
}

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
