// SPDX-License-Identifier: Apache-2.0
// cuguard's errors as the PyTorch errors Python shows, for cuguard::torch: one path for every
// error, a bad tensor argument (argument_error, as every adapter throws it) included.
#pragma once

#include <cuguard/argument_error.hpp>
#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/violation_error.hpp>

#include <c10/util/Exception.h>

#include <cuda/std/source_location>

#include <cstdint>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// A cuguard report as the PyTorch error Python shows: IndexError for an index out of range
/// (out_of_bounds, index_overflow), RuntimeError (c10::Error) for the others, the whole report
/// as the message.
template <class F>
decltype(auto) as_torch_errors(F&& f) {
  try {
    return f();
  } catch (const violation_error& e) {
    const violation_kind k = e.report().kind;
    const c10::SourceLocation at{e.report().function, e.report().file, e.report().line};
    if (k == violation_kind::out_of_bounds || k == violation_kind::index_overflow) throw c10::IndexError(at, e.what());
    throw c10::Error(at, e.what());
  } catch (const cuda_error& e) {
    throw c10::Error({__func__, __FILE__, static_cast<std::uint32_t>(__LINE__)}, e.what());
  } catch (const argument_error& e) {
    const cuda::std::source_location& w = e.where();
    throw c10::ValueError({w.function_name(), w.file_name(), static_cast<std::uint32_t>(w.line())}, e.what());
  }
}

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
