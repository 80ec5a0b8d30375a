// SPDX-License-Identifier: Apache-2.0
// The pieces a report's text is made of: lists, shapes, views, source positions, thread
// positions, operation names, numbers as they were given.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

inline void append_list(text& out, const std::int64_t* values, int n) {
  for (int i = 0; i < n; ++i) {
    if (i != 0) out << ", ";
    out << values[i];
  }
}

/// "float[2, 3]"
inline void append_shape(text& out, const char* type, const std::int64_t* extents, int rank) {
  out << type << '[';
  append_list(out, extents, rank);
  out << ']';
}

/// "'x' float[2, 3]" (or "unnamed float[2, 3]")
inline void append_view(text& out, const violation& v) {
  if (v.label[0] != '\0')
    out << '\'' << v.label << "' ";
  else
    out << "unnamed ";
  append_shape(out, v.type, v.extent, v.rank);
}

inline void append_strides(text& out, const violation& v) {
  out << " strides [";
  append_list(out, v.stride, v.rank);
  out << ']';
}

/// A function's or kernel's name as its source spells it, whichever compiler or demangler named
/// it: integer template arguments without the demangler's suffixes ("k<64u, -2l>" is "k<64, -2>"),
/// and integer types as the demangler and the code write them, not GCC's long forms ("long int"
/// is "long", "long unsigned int" "unsigned long"). So a kernel reads one way in every line of a
/// report.
inline void append_code_name(text& out, const char* name) {
  const auto word = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  // GCC's spellings, longest first, and the code's.
  static constexpr const char* long_forms[][2] = {
      {"long long unsigned int", "unsigned long long"}, {"long unsigned int", "unsigned long"},
      {"short unsigned int", "unsigned short"},         {"long long int", "long long"},
      {"long int", "long"},                             {"short int", "short"}};
  for (std::size_t i = 0; name[i] != '\0';) {
    const bool starts = i == 0 || !word(name[i - 1]);
    if (starts && name[i] >= '0' && name[i] <= '9') {
      std::size_t end = i;
      while (name[end] >= '0' && name[end] <= '9') out << name[end++];
      std::size_t suffix = end;
      while (name[suffix] == 'u' || name[suffix] == 'l') ++suffix;
      i = suffix > end && suffix - end <= 3 && !word(name[suffix]) ? suffix : end;
      continue;
    }
    bool replaced = false;
    for (const auto& form : long_forms) {
      std::size_t n = 0;
      while (form[0][n] != '\0' && name[i + n] == form[0][n]) ++n;
      if (starts && form[0][n] == '\0' && !word(name[i + n])) {
        out << form[1];
        i += n;
        replaced = true;
        break;
      }
    }
    if (!replaced) out << name[i++];
  }
}

/// " in <function>" (append_code_name), or nothing where the function is not known.
inline void append_function(text& out, const char* function) {
  if (function[0] == '\0') return;
  out << " in ";
  append_code_name(out, function);
}

inline void append_site(text& out, const char* prefix, const site_record& s) {
  out << prefix << s.file;
  if (s.line != 0) out << ':' << s.line;
  append_function(out, s.function);
}

inline void append_dim3(text& out, const unsigned (&v)[3]) {
  out << '(' << v[0] << ',' << v[1] << ',' << v[2] << ')';
}

/// "dim 0 index 1030 >= extent 1024" or "dim 0 index -1 < 0"
inline void append_index_vs_extent(text& out, int dim, std::int64_t index, std::int64_t extent) {
  out << "dim " << dim << " index " << index;
  if (index < 0)
    out << " < 0";
  else
    out << " >= extent " << extent;
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
    case operation::to_mdspan: return "to_mdspan";
    case operation::barrier: return "__syncthreads";
    case operation::subscript: return "subscript";
    case operation::warp_sync: return "warp-synchronous call";
    case operation::raw_access: return "raw access";
    case operation::pointer_access: return "pointer access";
  }
  return "operation";
}

inline bool is_vector_access(const violation& v) {
  return v.op == operation::vector_load || v.op == operation::vector_store;
}

/// An access of elements through a view or a cuguard::ptr.
inline bool is_element_access(const violation& v) {
  return v.op == operation::access || v.op == operation::pointer_access || is_vector_access(v);
}

/// A recorded number, as unsigned bits where it was given unsigned.
inline void append_number(text& out, std::int64_t n, bool is_unsigned) {
  if (is_unsigned)
    out << static_cast<std::uint64_t>(n);
  else
    out << n;
}

/// a + b, written without overflow: a sum past the int64 maximum (an index near it plus a
/// width) is written as the unsigned number it is.
inline void append_sum(text& out, std::int64_t a, std::int64_t b) {
  if (a >= 0 && b >= 0)
    out << static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b);
  else if ((a < 0) != (b < 0))
    out << a + b;
  else // both negative
    out << '-' << (0 - static_cast<std::uint64_t>(a)) + (0 - static_cast<std::uint64_t>(b));
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
