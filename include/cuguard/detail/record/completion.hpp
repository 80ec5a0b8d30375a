// SPDX-License-Identifier: Apache-2.0
// Completing a record: what a failed check left pending (the kind of a failed access, the texts)
// is worked out and copied, on the host or, before a trap, in device code.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/access_check.hpp>
#include <cuguard/detail/record/function_name.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Completes the record: classifies an element access and copies the texts that `text` can
/// give. `text(address, on_host)` returns the text at `address`, or null where it cannot be read
/// (device code cannot read host memory); such a text stays pending, a copied one does not.
CUGUARD_IMPL_EXEC_CHECK_DISABLE
template <class Text>
CUGUARD_HOST_DEVICE void finish(violation& v, pending& p, Text& text) {
  classify_access(v, p);
  const char* t = nullptr;
  if (p.file != 0 && (t = text(p.file, false)) != nullptr) copy_tail(v.file, t), p.file = 0;
  if (p.function != 0 && (t = text(p.function, false)) != nullptr) copy_function(v.function, t), p.function = 0;
  if (p.type != 0 && (t = text(p.type, false)) != nullptr) copy_type(v.type, p.type_const, t), p.type = 0;
  if (p.label != 0 && (t = text(p.label, p.label_on_host)) != nullptr) copy_text(v.label, t), p.label = 0;
  if (p.origin_label != 0 && (t = text(p.origin_label, p.origin_label_on_host)) != nullptr)
    copy_text(v.origin_label, t), p.origin_label = 0;
}

CUGUARD_HOST_DEVICE inline void finish_here(violation& v, pending& p) {
  texts_here text;
  finish(v, p, text);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
