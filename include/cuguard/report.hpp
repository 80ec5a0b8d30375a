// SPDX-License-Identifier: Apache-2.0
// Reports: cuguard::format, the one text format of every violation, and cuguard::violation_error.
// The text is built in detail/report/report_text.hpp; this header adds only the std::string of it
// (with <iosfwd> alone: see detail::host_string).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/report_text.hpp>
#include <cuguard/violation.hpp>
#include <cuguard/violation_error.hpp> // IWYU pragma: export (this header gives violation_error too)

#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// The report of `v` in cuguard's one format: a headline, then indented lines for the index
/// origin, the allocation, the source position and (device code) the thread and launch. A
/// std::string: include <string> where you call it (this header parses <iosfwd> alone).
template <class V, std::enable_if_t<std::is_same<V, violation>::value, int> = 0>
detail::host_string<V> format(const V& v) {
  const detail::text t = detail::report_text(v);
  return detail::host_string<V>(t.c_str(), t.size());
}

CUGUARD_IMPL_END_NAMESPACE
