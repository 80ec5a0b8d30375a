// SPDX-License-Identifier: Apache-2.0
// What a failed check records before the record is complete: the texts to copy and the facts of
// an element access (detail/record/completion.hpp completes the record from them).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/facts.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

template <class T>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE std::uint64_t address_of(const T* p) noexcept {
  return reinterpret_cast<std::uint64_t>(p);
}

/// What a check records besides the numbers of the violation, for finish() to complete the
/// record: the addresses of its texts and, for an element access, the facts that tell which
/// check failed. Device code writes these few scalars rather than copying texts and working out
/// the kind, which keeps the cold path of a check small: it holds few values, so it costs the
/// kernel few registers. All zero (as the host clears it) asks for nothing.
struct pending {
  std::uint64_t file;        ///< source file of the check (copied keeping its end)
  std::uint64_t function;    ///< function of the check
  std::uint64_t type;        ///< element type name of the view
  std::uint64_t label;       ///< label of the view
  std::uint64_t origin_label;///< label of the index view the offending index came from
  bool label_on_host;        ///< `label` is host memory (device code cannot read it)
  bool origin_label_on_host; ///< the same for `origin_label`
  bool type_const;           ///< the element type is const
  bool access;               ///< an element access: kind, dim and origin still to work out
  unsigned element_bytes;    ///< size of one element
  std::uint64_t data;        ///< the view's data address
  lifetime_token token;      ///< the view's lifetime token
  std::uint64_t view_launch; ///< the launch number the view carried (0: none); v.launch.id is the device's last
  origin_info origins[violation::max_rank]; ///< where each index came from (checked_index only)
};

template <std::size_t N>
CUGUARD_HOST_DEVICE inline void copy_type(char (&dst)[N], bool is_const, const char* name) noexcept {
  const char* prefix = is_const ? "const " : "";
  std::size_t i = 0;
  for (; *prefix != '\0' && i + 1 < N; ++prefix) dst[i++] = *prefix;
  for (; name != nullptr && *name != '\0' && i + 1 < N; ++name) dst[i++] = *name;
  dst[i] = '\0';
}

/// Texts read where the code runs: host code and emulated kernels read every text; device code
/// (what the trap policy copies before the kernel stops) all but those in host memory.
struct texts_here {
  CUGUARD_HOST_DEVICE const char* operator()(std::uint64_t address, bool on_host) const noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
    if (on_host) return nullptr;
#else
    (void)on_host;
#endif
    return reinterpret_cast<const char*>(address);
  }
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
