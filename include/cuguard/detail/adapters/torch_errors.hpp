// SPDX-License-Identifier: Apache-2.0
// cuguard's errors as the PyTorch errors Python shows, for cuguard::torch: one path for every
// error, a bad tensor argument (argument_error, as every adapter throws it) included.
#pragma once

#include <cuguard/argument_error.hpp>
#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/violation_error.hpp>

#include <c10/util/Exception.h>

#include <cuda/std/source_location>

#include <cstdint>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// A report's text, and in a job of several processes (RANK and WORLD_SIZE set, as
/// torch.distributed's launchers set them) a last line naming the rank: "in rank 1 of 2".
inline std::string report_in_job(const char* report) {
  std::string text = report;
  const char* rank = platform::environment(platform::setting::job_rank);
  const char* world = platform::environment(platform::setting::job_world_size);
  const auto number = [](const char* s) {
    if (s == nullptr || *s == '\0') return false;
    for (; *s != '\0'; ++s)
      if (*s < '0' || *s > '9') return false;
    return true;
  };
  if (number(rank) && number(world))
    text += std::string("\n  in rank ") + rank + " of " + world + " (torch.distributed: RANK and WORLD_SIZE)";
  return text;
}

/// A cuguard report as the PyTorch error Python shows: IndexError for an index out of range
/// (out_of_bounds, index_overflow), RuntimeError (c10::Error) for the others, the whole report
/// as the message (report_in_job).
template <class F>
decltype(auto) as_torch_errors(F&& f) {
  try {
    return f();
  } catch (const violation_error& e) {
    const violation_kind k = e.report().kind;
    const c10::SourceLocation at{e.report().function, e.report().file, e.report().line};
    const std::string text = report_in_job(e.what());
    if (k == violation_kind::out_of_bounds || k == violation_kind::index_overflow) throw c10::IndexError(at, text);
    throw c10::Error(at, text);
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
