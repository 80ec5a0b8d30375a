// SPDX-License-Identifier: Apache-2.0
// Helpers of the cuguard::torch suites: the text of an error a call throws.
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace torch_test_support {

/// The message of the c10 error of type E that `call` throws, without PyTorch's backtrace ("no
/// error" if none; "another error: ..." for another type).
template <class E, class Call>
std::string message_of(Call call) {
  try {
    call();
  } catch (const E& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return std::string("another error: ") + e.what();
  }
  return "no error";
}

/// The first line of `text`.
inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

} // namespace torch_test_support
