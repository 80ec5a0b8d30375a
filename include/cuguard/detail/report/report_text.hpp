// SPDX-License-Identifier: Apache-2.0
// The text of a report: one small function per violation kind for the headline, then the lines
// every report shares (index origin, allocation, source position, thread and launch).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/scheduler_text.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/detail/report/text_parts.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// "vector load of 4 elements from 'x' float[8] at (6): " and the like: the access a report is about.
inline void append_access(text& out, const violation& v, const char* adjective) {
  out << adjective;
  if (v.op == operation::pointer_access) {
    out << "access through pointer ";
    append_view(out, v);
    out << " at offset " << v.index[0] << ": ";
    return;
  }
  if (is_vector_access(v))
    out << operation_name(v.op) << " of " << v.width << " elements"
        << (v.op == operation::vector_load ? " from " : " to ");
  else
    out << "access to ";
  append_view(out, v);
  out << " at (";
  append_list(out, v.index, v.rank);
  out << "): ";
}

/// "kernel argument 'x' float[8] of gather_rows: "
inline void append_kernel_argument(text& out, const violation& v) {
  out << "kernel argument ";
  append_view(out, v);
  out << " of ";
  append_code_name(out, v.launch.kernel);
  out << ": ";
}

/// "allocation 'x' (64 bytes) was released"
inline void append_released(text& out, const violation& v) {
  out << "allocation '" << v.alloc_label << "' (" << v.alloc_bytes << " bytes) was released";
}

// One headline per violation kind: what each kind recorded (violation's named numbers) and how it reads.

inline void append_out_of_bounds(text& out, const violation& v) {
  if (v.op == operation::raw_access) {
    append_raw_access(out, v);
  } else if (v.op == operation::pointer_access) { // "offset 10 >= extent 10", "offset -1 < 0"
    out << "out-of-bounds access through pointer ";
    append_view(out, v);
    out << ": offset " << v.index[0];
    if (v.index[0] < 0)
      out << " < 0";
    else
      out << " >= extent " << v.extent[0];
  } else if (v.op == operation::access || is_vector_access(v)) {
    append_access(out, v, "out-of-bounds ");
    if (is_vector_access(v) && v.dim == v.rank - 1)
      {
      out << "dim " << v.dim << " range [" << v.index[v.dim] << ", ";
      append_sum(out, v.index[v.dim], v.width);
      out << ") exceeds extent " << v.extent[v.dim];
    }
    else
      append_index_vs_extent(out, v.dim, v.index[v.dim], v.extent[v.dim]);
  } else if (v.op == operation::slice) {
    out << "out-of-bounds slice of ";
    append_view(out, v);
    out << ": dim " << v.dim << " range [" << v.value << ", " << v.value_end << ") is not within [0, "
        << v.extent[v.dim] << ")";
  } else if (v.op == operation::subscript) { // "[1][5]": the subscripts so far, the last one failed
    out << "out-of-bounds subscript of ";
    append_view(out, v);
    out << " at ";
    for (int r = 0; r <= v.dim; ++r) out << '[' << v.index[r] << ']';
    out << ": ";
    append_index_vs_extent(out, v.dim, v.index[v.dim], v.extent[v.dim]);
  } else if (v.op == operation::select) {
    out << "out-of-bounds select of ";
    append_view(out, v);
    out << ": ";
    append_index_vs_extent(out, v.dim, v.value, v.extent[v.dim]);
  } else if (v.op == operation::bounded) {
    out << "out-of-bounds index: bounded(";
    append_number(out, v.value, v.value_unsigned);
    out << ", ";
    append_number(out, v.limit, v.limit_unsigned);
    out << ") needs 0 <= value < ";
    append_number(out, v.limit, v.limit_unsigned);
  } else { // make_view over part of a tracked allocation
    out << "out-of-bounds view ";
    append_view(out, v);
    out << ": it spans bytes [" << v.address << ", ";
    append_sum(out, v.address, v.bytes);
    out << ") of allocation '" << v.alloc_label << "' of " << v.alloc_bytes << " bytes";
  }
}

/// A count or offset of a view's shape (detail::add_reach, add_count: counted unsigned, held at
/// 2^63 once past it), as the number it is: a held one as "9223372036854775808 or more", never
/// as the negative number its bits make in the report's int64.
inline void append_shape_figure(text& out, std::int64_t value) {
  const auto figure = static_cast<std::uint64_t>(value);
  out << figure << (figure >= shape_cap ? " or more" : "");
}

inline void append_index_overflow(text& out, const violation& v) {
  out << "index overflow in " << operation_name(v.op) << " of ";
  if (v.figure == shape_figure::extent || v.figure == shape_figure::stride) { // the view's shape holds it truncated
    out << '\'' << v.label << "': dim " << v.dim << (v.figure == shape_figure::extent ? " extent " : " stride ")
        << v.value << " exceeds the index type's maximum " << v.limit;
    return;
  }
  append_view(out, v);
  append_strides(out, v);
  if (v.op == operation::reshape) {
    out << " to [";
    append_list(out, v.expected, v.expected_rank);
    out << ']';
  }
  out << (v.figure == shape_figure::element_count ? ": element count " : ": largest offset ");
  append_shape_figure(out, v.value);
  if (v.figure == shape_figure::pointer_offset)
    out << " exceeds " << v.limit << ", the most a pointer to its elements can be offset by";
  else
    out << " exceeds the index type's maximum " << v.limit;
}

inline void append_non_contiguous(text& out, const violation& v) {
  if (is_vector_access(v)) {
    append_access(out, v, "non-contiguous ");
    out << "inner stride " << v.stride[v.rank - 1] << " is not 1";
    return;
  }
  const bool reshape = v.op == operation::reshape;
  out << (reshape ? "non-contiguous reshape of " : "non-contiguous ");
  append_view(out, v);
  append_strides(out, v);
  out << (reshape ? " to [" : ": expected strides [");
  append_list(out, v.expected, v.expected_rank);
  out << (reshape ? "]: reshape needs contiguous storage" : "]");
}

inline void append_misaligned(text& out, const violation& v) {
  if (v.op == operation::make_view) { // `value`: the data's address, `limit`: the element type's alignment
    out << "misaligned view: ";
    append_view(out, v);
    out << " starts at " << hex{static_cast<unsigned long long>(v.value)} << ", which is not " << v.limit
        << "-byte aligned (every element access through it would be misaligned)";
    return;
  }
  if (v.op == operation::pointer_access) { // a ptr_cast of a misaligned address, or a T* not aligned for T
    out << "misaligned access through pointer '" << v.label << "' " << v.type << " at offset " << v.index[0]
        << ": address " << hex{static_cast<unsigned long long>(v.address)} << " is not " << v.bytes
        << "-byte aligned, as its element type needs";
    return;
  }
  append_access(out, v, "misaligned ");
  out << "address " << hex{static_cast<unsigned long long>(v.address)} << " is not " << v.bytes << "-byte aligned";
}

inline void append_use_after_free(text& out, const violation& v) {
  if (v.op == operation::raw_access) return append_raw_access(out, v);
  out << "use after free: ";
  if (is_element_access(v)) {
    append_access(out, v, "");
    append_released(out, v);
  } else if (v.op == operation::launch) {
    append_kernel_argument(out, v);
    append_released(out, v);
  } else {
    out << "release of '" << v.alloc_label << "' (" << v.alloc_bytes << " bytes), which was already released";
  }
}

inline void append_wrong_memory_space(text& out, const violation& v) {
  if (is_element_access(v)) {
    append_access(out, v, "wrong memory space: ");
  } else if (v.op == operation::launch) {
    out << "wrong memory space: ";
    append_kernel_argument(out, v);
  } else {
    out << "wrong memory space: " << operation_name(v.op) << " of ";
    append_view(out, v);
    out << ": ";
  }
  const char* what = v.op == operation::pointer_access ? "the pointer" : "the view";
  if (v.space == memory_space::device) {
    out << what << " points to device " << v.device << " memory";
    if (v.op == operation::launch) // a kernel argument in device memory: another device's
      out << ", and the kernel runs on device " << v.kernel_device;
    else
      out << ", which host code cannot access";
  } else {
    out << what << " points to host memory, which device code cannot access";
  }
}

inline void append_shape_mismatch(text& out, const violation& v) {
  out << "shape mismatch in " << operation_name(v.op) << " of ";
  append_view(out, v);
  out << (v.op == operation::reshape ? " to [" : ": expected [");
  append_list(out, v.expected, v.expected_rank);
  out << ']';
  if (v.op == operation::reshape && v.figure == shape_figure::element_count)
    out << ": " << v.limit << " elements != more than " << v.value << " elements";
  else if (v.op == operation::reshape)
    out << ": " << v.limit << " elements != " << v.value << " elements";
  else if (v.dim >= 0)
    out << ": dim " << v.dim << " extent " << v.extent[v.dim] << " != " << v.expected[v.dim];
  else
    out << ": rank " << v.rank << " != " << v.expected_rank;
}

inline void append_null_data(text& out, const violation& v) {
  out << "null data: ";
  append_view(out, v);
  out << " has " << v.value << " elements over a null pointer";
}

inline void append_invalid_argument(text& out, const violation& v) {
  out << "invalid argument to " << operation_name(v.op);
  if (v.op == operation::release) {
    out << ": " << hex{static_cast<unsigned long long>(v.value)} << " is not a tracked allocation";
    return;
  }
  out << " of ";
  append_view(out, v);
  if (v.op == operation::make_view) {
    append_strides(out, v);
    out << ": dim " << v.dim << (v.figure == shape_figure::extent ? " extent " : " stride ") << v.value << " < 0";
  } else if (v.op == operation::to_mdspan) {
    append_strides(out, v);
    if (v.dim >= 0)
      out << ": dim " << v.dim << " stride " << v.value << " is not > 0, as layout_stride needs";
    else if (v.figure == shape_figure::largest_offset) {
      out << ": largest offset ";
      append_shape_figure(out, v.value); // held at 2^63: "... or more"
      out << (static_cast<std::uint64_t>(v.value) >= shape_cap ? ": layout_stride's required span size"
                                                               : " + 1 (layout_stride's required span size)")
          << " exceeds the index type's maximum " << v.limit;
    }
    else
      out << ": no order of its dimensions has each stride at least the one before times its extent, as a unique "
             "layout_stride needs";
  } else if (v.op == operation::permute) {
    out << ": (";
    append_list(out, v.expected, v.expected_rank);
    out << ") is not a permutation of 0.." << v.rank - 1;
  } else {
    out << ": dim " << v.dim << " is not < rank " << v.rank;
  }
}

inline void append_non_finite(text& out, const violation& v) {
  double value = 0;
  std::memcpy(&value, &v.value, sizeof value);
  char number[32];
  std::snprintf(number, sizeof number, "%g", value);
  out << "non-finite value " << number << " for ";
  append_view(out, v);
  out << " at (";
  append_list(out, v.index, v.rank);
  out << ')';
}

/// The first line of a report: what went wrong, where in the view, against what.
inline void append_headline(text& out, const violation& v) {
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
    case violation_kind::divergent_barrier: return append_divergent_barrier(out, v);
    case violation_kind::shared_race: return append_shared_race(out, v);
    case violation_kind::illegal_address: return append_illegal_address(out, v);
    case violation_kind::uninitialized_read: return append_uninitialized_read(out, v);
    case violation_kind::annotation_violation: return append_annotation_violation(out, v);
    case violation_kind::conversion_overflow: return append_conversion_overflow(out, v);
    case violation_kind::shift_overflow: return append_shift_overflow(out, v);
    case violation_kind::none: break;
  }
  out << "no violation";
}

/// "offset 4294967306 is 10 + 2^32: a 32-bit index may have overflowed": an element access out of
/// its extent by a multiple of 2^32, which int arithmetic that wrapped gives.
inline void append_index_wrap(text& out, const violation& v) {
  if (v.kind != violation_kind::out_of_bounds || !is_element_access(v) || v.dim < 0) return;
  const std::int64_t index = v.index[v.dim];
  const std::int64_t wrapped = static_cast<std::int64_t>(static_cast<std::uint64_t>(index) & 0xffffffffu);
  if (wrapped == index || wrapped >= v.extent[v.dim]) return;
  const std::int64_t times = (index - wrapped) / (std::int64_t{1} << 32); // exact: they differ in the high bits only
  out << "\n  " << (v.op == operation::pointer_access ? "offset " : "index ") << index << " is " << wrapped
      << (times < 0 ? " - " : " + ");
  if (times != 1 && times != -1) out << (times < 0 ? -times : times) << " * ";
  out << "2^32: a 32-bit index computation may have overflowed";
}

/// A pointer access's tensors (host code took the pointer from one): the pointer's, and the one
/// the access lands in.
inline void append_tensors(text& out, const violation& v) {
  if (v.op != operation::pointer_access || v.tensor[0] == '\0') return;
  out << "\n  the pointer was taken from tensor '" << v.tensor << "' (its elements are the bounds)";
  if (v.tensor_hit[0] != '\0') out << "; the access lands in tensor '" << v.tensor_hit << "'";
}

/// Where the index came from, the allocation, the source position and (device code) the thread
/// and launch: the lines under the headline.
inline void append_details(text& out, const violation& v) {
  if (v.origin == index_origin::index_view && v.dim >= 0) {
    out << "\n  index " << v.index[v.dim] << " came from '" << v.origin_label << "'[";
    append_list(out, v.origin_index, v.origin_rank);
    out << ']';
  } else if (v.origin == index_origin::bounded && v.dim >= 0) {
    out << "\n  index " << v.index[v.dim] << " was checked against bound " << v.origin_index[0];
  }
  append_index_wrap(out, v);
  append_tensors(out, v);
  if (v.kind == violation_kind::use_after_free && v.op != operation::raw_access) {
    append_site(out, "\n  allocated at ", v.alloc_site);
    append_site(out, "\n  released at ", v.free_site);
  } else if (v.op == operation::pointer_access && v.alloc_label[0] != '\0' && v.alloc_site.file[0] == '\0') {
    out << "\n  the pointer is into " << v.alloc_label << " (" << v.alloc_bytes << " bytes)"; // (describe_memory's)
  } else if (v.op == operation::pointer_access && v.alloc_label[0] != '\0') {
    out << "\n  the pointer is into allocation '" << v.alloc_label << "' (" << v.alloc_bytes << " bytes)";
    append_site(out, " allocated at ", v.alloc_site);
  }
  if (v.file[0] == '\0' && v.op == operation::pointer_access) {
    out << "\n  at a line the language does not give (*p, p->m): write p[0] to have it";
  } else {
    out << "\n  at " << v.file;
    if (v.line != 0) out << ':' << v.line;
    append_function(out, v.function);
  }
  if (!v.on_device) return;
  out << "\n  block ";
  append_dim3(out, v.block);
  out << " thread ";
  append_dim3(out, v.thread);
  if (v.launch.id != 0) {
    out << " of launch #" << v.launch.id << ' ';
    append_code_name(out, v.launch.kernel);
    out << "<<<";
    append_dim3(out, v.launch.grid);
    out << ',';
    append_dim3(out, v.launch.block);
    out << ">>>";
    append_site(out, " at ", v.launch.site);
  } else if (v.launch.grid[0] != 0) {
    // Every cuguard::launch numbers its launch (checked builds); a record of no grid is incomplete.
    out << " of a launch not made through cuguard::launch <<<";
    append_dim3(out, v.launch.grid);
    out << ',';
    append_dim3(out, v.launch.block);
    out << ">>>";
  }
  // Unless CUGUARD_ON_DEVICE_VIOLATION_CONTINUE, a thread stops at its first violation: the count
  // is one per thread, and later violations of those threads were never made.
  // initcheck's reads stop no thread: each is counted.
  if (v.count > 1 && v.kind == violation_kind::uninitialized_read)
    out << "\n  (" << v.count - 1 << " more uninitialized reads in this launch)";
  else if (v.count > 1 && v.count_is_lower_bound)
    out << "\n  (" << v.count - 1 << " more threads stopped at a violation in this launch)";
  else if (v.count > 1)
    out << "\n  (" << v.count - 1 << " more violations in this launch)";
}

/// The report of `v` in cuguard's one format (cuguard::format returns it as a std::string).
inline text report_text(const violation& v) {
  text out = "cuguard: ";
  append_headline(out, v);
  append_details(out, v);
  return out;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
