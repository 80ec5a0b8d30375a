// SPDX-License-Identifier: Apache-2.0
// Reports: one text format for every violation, cuguard::violation_error, the host-side policy.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE

namespace detail {

inline void append_list(std::string& out, const std::int64_t* values, int n) {
  for (int i = 0; i < n; ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(values[i]);
  }
}

/// "float[2, 3]"
inline void append_shape(std::string& out, const char* type, const std::int64_t* extents, int rank) {
  out += type;
  out += '[';
  append_list(out, extents, rank);
  out += ']';
}

/// "'x' float[2, 3]" (or "unnamed float[2, 3]")
inline void append_view(std::string& out, const violation& v) {
  if (v.label[0] != '\0') {
    out += '\'';
    out += v.label;
    out += "' ";
  } else {
    out += "unnamed ";
  }
  append_shape(out, v.type, v.extent, v.rank);
}

inline void append_strides(std::string& out, const violation& v) {
  out += " strides [";
  append_list(out, v.stride, v.rank);
  out += ']';
}

inline void append_site(std::string& out, const char* prefix, const site_record& s) {
  out += prefix;
  out += s.file;
  if (s.line != 0) out += ':' + std::to_string(s.line);
  if (s.function[0] != '\0') {
    out += " in ";
    out += s.function;
  }
}

inline void append_hex(std::string& out, std::int64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  out += buf;
}

inline void append_dim3(std::string& out, const unsigned (&v)[3]) {
  out += '(' + std::to_string(v[0]) + ',' + std::to_string(v[1]) + ',' + std::to_string(v[2]) + ')';
}

/// "dim 0 index 1030 >= extent 1024" or "dim 0 index -1 < 0"
inline void append_index_vs_extent(std::string& out, int dim, std::int64_t index, std::int64_t extent) {
  out += "dim " + std::to_string(dim) + " index " + std::to_string(index);
  out += index < 0 ? " < 0" : " >= extent " + std::to_string(extent);
}

inline const char* operation_name(operation op) {
  switch (op) {
    case operation::access: return "access";
    case operation::vector_load: return "vector load";
    case operation::vector_store: return "vector store";
    case operation::slice: return "slice";
    case operation::select: return "select";
    case operation::permute: return "permute";
    case operation::reshape: return "reshape";
    case operation::make_view: return "make_view";
    case operation::bounded: return "bounded";
    case operation::expect_contiguous: return "expect_contiguous";
    case operation::expect_shape: return "expect_shape";
    case operation::release: return "release";
    case operation::launch: return "launch";
    case operation::expect_finite: return "expect_finite";
  }
  return "operation";
}

/// "vector load of 4 elements from 'x' float[8] at (6): " and the like: the access a report is about.
inline void append_access(std::string& out, const violation& v, const char* adjective) {
  out += adjective;
  if (v.op == operation::vector_load || v.op == operation::vector_store) {
    out += operation_name(v.op);
    out += " of " + std::to_string(v.arg[0]) + " elements" + (v.op == operation::vector_load ? " from " : " to ");
  } else {
    out += "access to ";
  }
  append_view(out, v);
  out += " at (";
  append_list(out, v.index, v.rank);
  out += "): ";
}

/// "kernel argument 'x' float[8] of gather_rows: "
inline void append_kernel_argument(std::string& out, const violation& v) {
  out += "kernel argument ";
  append_view(out, v);
  out += " of ";
  out += v.launch.kernel;
  out += ": ";
}

/// "allocation 'x' (64 bytes) was released"
inline void append_released(std::string& out, const violation& v) {
  out += "allocation '";
  out += v.alloc_label;
  out += "' (" + std::to_string(v.alloc_bytes) + " bytes) was released";
}

inline bool is_vector_access(const violation& v) {
  return v.op == operation::vector_load || v.op == operation::vector_store;
}

// One headline per violation kind: what each kind recorded (see violation::arg) and how it reads.

inline void append_out_of_bounds(std::string& out, const violation& v) {
  if (v.op == operation::access || is_vector_access(v)) {
    append_access(out, v, "out-of-bounds ");
    if (is_vector_access(v) && v.dim == v.rank - 1)
      out += "dim " + std::to_string(v.dim) + " range [" + std::to_string(v.index[v.dim]) + ", " +
             std::to_string(v.index[v.dim] + v.arg[0]) + ") exceeds extent " + std::to_string(v.extent[v.dim]);
    else
      append_index_vs_extent(out, v.dim, v.index[v.dim], v.extent[v.dim]);
  } else if (v.op == operation::slice) {
    out += "out-of-bounds slice of ";
    append_view(out, v);
    out += ": dim " + std::to_string(v.dim) + " range [" + std::to_string(v.arg[0]) + ", " +
           std::to_string(v.arg[1]) + ") is not within [0, " + std::to_string(v.extent[v.dim]) + ")";
  } else if (v.op == operation::select) {
    out += "out-of-bounds select of ";
    append_view(out, v);
    out += ": ";
    append_index_vs_extent(out, v.dim, v.arg[0], v.extent[v.dim]);
  } else if (v.op == operation::bounded) {
    out += "out-of-bounds index: bounded(" + std::to_string(v.arg[0]) + ", " + std::to_string(v.arg[1]) +
           ") needs 0 <= value < " + std::to_string(v.arg[1]);
  } else { // make_view over part of a tracked allocation
    out += "out-of-bounds view ";
    append_view(out, v);
    out += ": it spans bytes [" + std::to_string(v.arg[1]) + ", " + std::to_string(v.arg[1] + v.arg[2]) +
           ") of allocation '";
    out += v.alloc_label;
    out += "' of " + std::to_string(v.alloc_bytes) + " bytes";
  }
}

inline void append_index_overflow(std::string& out, const violation& v) {
  out += "index overflow in make_view of ";
  if (v.arg[2] >= 2) { // one extent or stride (the view's shape holds it truncated)
    out += '\'';
    out += v.label;
    out += "': dim " + std::to_string(v.dim) + (v.arg[2] == 2 ? " extent " : " stride ");
  } else {
    append_view(out, v);
    append_strides(out, v);
    out += v.arg[2] == 0 ? ": largest offset " : ": element count ";
  }
  out += std::to_string(v.arg[0]) + " exceeds the index type's maximum " + std::to_string(v.arg[1]);
}

inline void append_non_contiguous(std::string& out, const violation& v) {
  if (is_vector_access(v)) {
    append_access(out, v, "non-contiguous ");
    out += "inner stride " + std::to_string(v.stride[v.rank - 1]) + " is not 1";
    return;
  }
  const bool reshape = v.op == operation::reshape;
  out += reshape ? "non-contiguous reshape of " : "non-contiguous ";
  append_view(out, v);
  append_strides(out, v);
  out += reshape ? " to [" : ": expected strides [";
  append_list(out, v.expected, v.expected_rank);
  out += reshape ? "]: reshape needs contiguous storage" : "]";
}

inline void append_misaligned(std::string& out, const violation& v) {
  append_access(out, v, "misaligned ");
  out += "address ";
  append_hex(out, v.arg[1]);
  out += " is not " + std::to_string(v.arg[2]) + "-byte aligned";
}

inline void append_use_after_free(std::string& out, const violation& v) {
  out += "use after free: ";
  if (v.op == operation::access || is_vector_access(v)) {
    append_access(out, v, "");
    append_released(out, v);
  } else if (v.op == operation::launch) {
    append_kernel_argument(out, v);
    append_released(out, v);
  } else {
    out += "release of '";
    out += v.alloc_label;
    out += "' (" + std::to_string(v.alloc_bytes) + " bytes), which was already released";
  }
}

inline void append_wrong_memory_space(std::string& out, const violation& v) {
  if (v.op == operation::access || is_vector_access(v)) {
    append_access(out, v, "wrong memory space: ");
  } else if (v.op == operation::launch) {
    out += "wrong memory space: ";
    append_kernel_argument(out, v);
  } else {
    out += "wrong memory space: ";
    out += operation_name(v.op);
    out += " of ";
    append_view(out, v);
    out += ": ";
  }
  if (v.space == memory_space::device) {
    out += "the view points to device " + std::to_string(v.device) + " memory";
    out += v.arg[1] == 1 ? ", and the kernel runs on device " + std::to_string(v.arg[2]) : ", which host code cannot access";
  } else {
    out += "the view points to host memory, which device code cannot access";
  }
}

inline void append_shape_mismatch(std::string& out, const violation& v) {
  out += "shape mismatch in ";
  out += operation_name(v.op);
  out += " of ";
  append_view(out, v);
  out += v.op == operation::reshape ? " to [" : ": expected [";
  append_list(out, v.expected, v.expected_rank);
  out += ']';
  if (v.op == operation::reshape) {
    out += ": " + std::to_string(v.arg[0]) + " elements != " + std::to_string(v.arg[1]) + " elements";
  } else if (v.dim >= 0) {
    out += ": dim " + std::to_string(v.dim) + " extent " + std::to_string(v.extent[v.dim]) +
           " != " + std::to_string(v.expected[v.dim]);
  } else {
    out += ": rank " + std::to_string(v.rank) + " != " + std::to_string(v.expected_rank);
  }
}

inline void append_null_data(std::string& out, const violation& v) {
  out += "null data: ";
  append_view(out, v);
  out += " has " + std::to_string(v.arg[0]) + " elements over a null pointer";
}

inline void append_invalid_argument(std::string& out, const violation& v) {
  out += "invalid argument to ";
  out += operation_name(v.op);
  if (v.op == operation::release) {
    out += ": ";
    append_hex(out, v.arg[0]);
    out += " is not a tracked allocation";
    return;
  }
  out += " of ";
  append_view(out, v);
  if (v.op == operation::make_view) {
    append_strides(out, v);
    out += ": dim " + std::to_string(v.dim) + (v.arg[0] == 0 ? " extent " : " stride ") + std::to_string(v.arg[1]) +
           " < 0";
  } else if (v.op == operation::permute) {
    out += ": (";
    append_list(out, v.expected, v.expected_rank);
    out += ") is not a permutation of 0.." + std::to_string(v.rank - 1);
  } else {
    out += ": dim " + std::to_string(v.dim) + " is not < rank " + std::to_string(v.rank);
  }
}

inline void append_non_finite(std::string& out, const violation& v) {
  double value = 0;
  std::memcpy(&value, &v.arg[0], sizeof value);
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  out += std::string("non-finite value ") + text + " for ";
  append_view(out, v);
  out += " at (";
  append_list(out, v.index, v.rank);
  out += ')';
}

/// The first line of a report: what went wrong, where in the view, against what.
inline void append_headline(std::string& out, const violation& v) {
  switch (v.kind) {
    case violation_kind::out_of_bounds: return append_out_of_bounds(out, v);
    case violation_kind::index_overflow: return append_index_overflow(out, v);
    case violation_kind::non_contiguous: return append_non_contiguous(out, v);
    case violation_kind::misaligned: return append_misaligned(out, v);
    case violation_kind::use_after_free: return append_use_after_free(out, v);
    case violation_kind::wrong_memory_space: return append_wrong_memory_space(out, v);
    case violation_kind::shape_mismatch: return append_shape_mismatch(out, v);
    case violation_kind::null_data: return append_null_data(out, v);
    case violation_kind::invalid_argument: return append_invalid_argument(out, v);
    case violation_kind::non_finite: return append_non_finite(out, v);
    case violation_kind::none: break;
  }
  out += "no violation";
}

} // namespace detail

/// The report of `v` in cuguard's one format: a headline, then indented lines for the index
/// origin, the allocation, the source position and (device code) the thread and launch.
inline std::string format(const violation& v) {
  std::string out = "cuguard: ";
  detail::append_headline(out, v);

  if (v.origin == index_origin::index_view && v.dim >= 0) {
    out += "\n  index " + std::to_string(v.index[v.dim]) + " came from '";
    out += v.origin_label;
    out += "'[";
    detail::append_list(out, v.origin_index, v.origin_rank);
    out += ']';
  } else if (v.origin == index_origin::bounded && v.dim >= 0) {
    out += "\n  index " + std::to_string(v.index[v.dim]) + " was checked against bound " +
           std::to_string(v.origin_index[0]);
  }
  if (v.kind == violation_kind::use_after_free) {
    detail::append_site(out, "\n  allocated at ", v.alloc_site);
    detail::append_site(out, "\n  released at ", v.free_site);
  }
  out += "\n  at ";
  out += v.file;
  out += ':' + std::to_string(v.line);
  if (v.function[0] != '\0') {
    out += " in ";
    out += v.function;
  }
  if (v.on_device) {
    out += "\n  block ";
    detail::append_dim3(out, v.block);
    out += " thread ";
    detail::append_dim3(out, v.thread);
    if (v.launch.id != 0) {
      out += " of launch #" + std::to_string(v.launch.id) + ' ' + v.launch.kernel + "<<<";
      detail::append_dim3(out, v.launch.grid);
      out += ',';
      detail::append_dim3(out, v.launch.block);
      out += ">>>";
      detail::append_site(out, " at ", v.launch.site);
    }
    if (v.count > 1) out += "\n  (" + std::to_string(v.count - 1) + " more violations in this launch)";
  }
  return out;
}

/// Thrown for a violation when CUGUARD_ON_VIOLATION_THROW is defined (host code), and by
/// cuguard::check() for a violation recorded in device code.
class violation_error : public std::exception {
 public:
  /// `note`: extra lines for what() (for example that the CUDA context was lost).
  explicit violation_error(const violation& v, const std::string& note = {})
      : report_(v), what_(cuguard::format(v) + note) {}
  /// The record.
  const violation& report() const noexcept { return report_; }
  /// The formatted report.
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  violation report_;
  std::string what_;
};

namespace detail {

/// Host policy for a violation found in host code: throw, or print and abort.
[[noreturn]] inline void raise_host(const violation& v) {
#if CUGUARD_IMPL_THROW
  throw violation_error(v);
#else
  std::fprintf(stderr, "%s\n", cuguard::format(v).c_str());
  std::fflush(stderr);
  std::abort();
#endif
}

} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
