// SPDX-License-Identifier: Apache-2.0
// What a failed check records before the record is complete, and how it is completed.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/index_args.hpp>
#include <cuguard/detail/lifetime_token.hpp>
#include <cuguard/violation.hpp>

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
  bool wrong_space;          ///< the access ran where the view's memory cannot be read
  bool stale;                ///< the view's allocation was released
  unsigned element_bytes;    ///< size of one element
  std::uint64_t data;        ///< the view's data address
  lifetime_token token;      ///< the view's lifetime token
  std::uint64_t view_launch; ///< the launch number the view carried (0: none); v.launch.id is the device's last
  origin_info origins[violation::max_rank]; ///< where each index came from (checked_index only)
};

/// Works out kind, dim and index origin of a failed element access from what was recorded:
/// the memory space, then the allocation's lifetime, then the first index out of its extent,
/// then (vector access) contiguity and alignment.
CUGUARD_HOST_DEVICE inline void classify_access(violation& v, pending& p) noexcept {
  if (!p.access) return;
  p.access = false;
  const int rank = v.rank;
  const std::int64_t width = v.arg[0];
  if (p.wrong_space) {
    v.kind = violation_kind::wrong_memory_space;
    return;
  }
  if (p.stale) {
    // The host fills the allocation from the token (describe_stale_allocation, through host_hooks).
    v.kind = violation_kind::use_after_free;
    v.arg[1] = p.token.slot;
    v.arg[2] = p.token.generation;
    return;
  }
  v.kind = violation_kind::out_of_bounds;
  for (int r = 0; r < rank; ++r) {
    const std::int64_t last = r == rank - 1 && width > 0 ? v.index[r] + width : v.index[r] + 1;
    if (v.index[r] < 0 || last > v.extent[r]) {
      v.dim = r;
      break;
    }
  }
  if (v.dim < 0 && width > 0) {
    if (v.stride[rank - 1] != 1) {
      v.kind = violation_kind::non_contiguous;
    } else {
      std::int64_t offset = 0;
      for (int r = 0; r < rank; ++r) offset += v.index[r] * v.stride[r];
      v.kind = violation_kind::misaligned;
      v.arg[1] = static_cast<std::int64_t>(p.data + static_cast<std::uint64_t>(offset) * p.element_bytes);
      v.arg[2] = static_cast<std::int64_t>(p.element_bytes) * width;
    }
  }
  if (v.dim >= 0 && p.origins[v.dim].kind != index_origin::none) {
    const origin_info& o = p.origins[v.dim];
    v.origin = o.kind;
    v.origin_rank = o.rank;
    p.origin_label = address_of(o.label.text);
    p.origin_label_on_host = o.label.on_host;
    for (int r = 0; r < violation::max_rank; ++r) v.origin_index[r] = o.position[r];
  }
}

template <int N>
CUGUARD_HOST_DEVICE inline void copy_type(char (&dst)[N], bool is_const, const char* name) noexcept {
  const char* prefix = is_const ? "const " : "";
  int i = 0;
  for (; *prefix != '\0' && i < N - 1; ++prefix) dst[i++] = *prefix;
  for (; name != nullptr && *name != '\0' && i < N - 1; ++name) dst[i++] = *name;
  dst[i] = '\0';
}

/// Completes the record: classifies an element access and copies the texts that `text` can
/// give. `text(address, on_host)` returns the text at `address`, or null where it cannot be read
/// (device code cannot read host memory); such a text stays pending, a copied one does not.
CUGUARD_IMPL_EXEC_CHECK_DISABLE
template <class Text>
CUGUARD_HOST_DEVICE void finish(violation& v, pending& p, Text& text) {
  classify_access(v, p);
  const char* t = nullptr;
  if (p.file != 0 && (t = text(p.file, false)) != nullptr) copy_tail(v.file, t), p.file = 0;
  if (p.function != 0 && (t = text(p.function, false)) != nullptr) copy_text(v.function, t), p.function = 0;
  if (p.type != 0 && (t = text(p.type, false)) != nullptr) copy_type(v.type, p.type_const, t), p.type = 0;
  if (p.label != 0 && (t = text(p.label, p.label_on_host)) != nullptr) copy_text(v.label, t), p.label = 0;
  if (p.origin_label != 0 && (t = text(p.origin_label, p.origin_label_on_host)) != nullptr)
    copy_text(v.origin_label, t), p.origin_label = 0;
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

CUGUARD_HOST_DEVICE inline void finish_here(violation& v, pending& p) {
  texts_here text;
  finish(v, p, text);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
