// SPDX-License-Identifier: Apache-2.0
// The reference model of the differential fuzz test: what a checked view must do, written from
// the rules of the documentation with 128-bit arithmetic and no cuguard code. A view is its rank,
// extents, strides and the offset of its data from the tracked buffer (in elements); each
// operation returns the view it makes or the violation it must report.
#pragma once

#include <cstdint>

namespace fuzz_model {

__extension__ typedef __int128 i128; // a GNU extension (g++ and clang): 128-bit arithmetic that cannot overflow here

enum class kind { none, out_of_bounds, invalid_argument, index_overflow, null_data, shape_mismatch, non_contiguous, misaligned };

inline const char* name(kind k) {
  switch (k) {
    case kind::none: return "none";
    case kind::out_of_bounds: return "out_of_bounds";
    case kind::invalid_argument: return "invalid_argument";
    case kind::index_overflow: return "index_overflow";
    case kind::null_data: return "null_data";
    case kind::shape_mismatch: return "shape_mismatch";
    case kind::non_contiguous: return "non_contiguous";
    case kind::misaligned: return "misaligned";
  }
  return "?";
}

/// A failed operation's kind and dimension (-1 where none applies), or kind::none.
struct outcome {
  kind k = kind::none;
  int dim = -1;
};

constexpr int max_rank = 4;

struct view {
  int rank = 0;
  std::int64_t ext[max_rank] = {};
  std::int64_t str[max_rank] = {};
  i128 offset = 0;   // of data from the buffer's first element, in elements
  bool null = false; // data is a null pointer
};

/// Offsets must also fit a pointer: in bytes, at most the int64 maximum.
///
/// The memory views are made over: `elements` floats, tracked as one allocation, aligned to
/// 256 bytes.
struct world {
  std::int64_t elements;
  int index_bits;        // 32 or 64
  std::uint64_t address; // of the buffer's first element
  i128 max() const { return index_bits == 32 ? i128{INT32_MAX} : i128{INT64_MAX}; }
};

constexpr i128 huge = i128{1} << 100; // far above every maximum: where counts and offsets are held

inline i128 count_of(const view& v) {
  for (int r = 0; r < v.rank; ++r)
    if (v.ext[r] == 0) return 0;
  i128 n = 1;
  for (int r = 0; r < v.rank; ++r) {
    const i128 e = v.ext[r] < 0 ? -i128{v.ext[r]} : i128{v.ext[r]};
    n = n > huge / e ? huge : n * e;
  }
  return n;
}

/// The largest offset a shape implies, extents of 0 included (each dimension on its own).
inline i128 largest_of(const int rank, const std::int64_t* ext, const i128* str) {
  i128 n = 0;
  for (int r = 0; r < rank; ++r) {
    if (ext[r] > 1) n += i128{ext[r] - 1} * str[r]; // at most 2^126
    if (n > huge) n = huge;
  }
  return n;
}

/// Row-major strides by PyTorch's rule: products of the extents, each taken as at least 1; where
/// one passes the index maximum (a view with an extent of 0) it is held at the maximum.
inline void row_major(const world& w, int rank, const std::int64_t* ext, i128* str) {
  i128 s = 1;
  for (int r = rank; r-- > 0;) {
    str[r] = s;
    s *= ext[r] < 1 ? 1 : ext[r];
    if (s > w.max()) s = w.max();
  }
  for (int r = 0; r < rank; ++r)
    if (str[r] > w.max()) str[r] = w.max();
}

/// make_view (strides == nullptr: contiguous) or make_strided_view.
inline outcome make(const world& w, int rank, const std::int64_t* ext, const std::int64_t* strides, i128 offset,
                    bool null, view& out) {
  // Without elements a stride the index cannot hold is held at its maximum.
  bool elements = true;
  for (int r = 0; r < rank; ++r) elements &= ext[r] != 0;
  for (int r = 0; r < rank; ++r) {
    if (ext[r] < 0) return {kind::invalid_argument, r};
    if (ext[r] > w.max()) return {kind::index_overflow, r};
    if (strides != nullptr) {
      if (strides[r] < 0) return {kind::invalid_argument, r};
      if (strides[r] > w.max() && elements) return {kind::index_overflow, r};
    }
  }
  i128 str[max_rank];
  if (strides != nullptr)
    for (int r = 0; r < rank; ++r) str[r] = strides[r] > w.max() ? w.max() : i128{strides[r]};
  else
    row_major(w, rank, ext, str);
  view v;
  v.rank = rank;
  for (int r = 0; r < rank; ++r) v.ext[r] = ext[r], v.str[r] = static_cast<std::int64_t>(str[r]);
  v.offset = null ? 0 : offset;
  v.null = null;
  // A view without elements reaches nothing: no offset or allocation of it is checked.
  const i128 count = count_of(v);
  const i128 largest = largest_of(rank, ext, str);
  if (count > 0 && null) return {kind::null_data, -1};
  if (count > 0 && (largest > w.max() || largest * 4 > INT64_MAX)) return {kind::index_overflow, -1}; // 4: sizeof(float)
  if (count > w.max()) return {kind::index_overflow, -1};
  if (count > 0) {
    // The tracked buffer: a view that starts in it, or starts before it and runs into it, must
    // lie inside it.
    const i128 end = offset + largest + 1;
    const bool starts_inside = offset >= 0 && offset < w.elements;
    const bool runs_into = offset < 0 && end > 0;
    if ((starts_inside || runs_into) && (offset < 0 || end > w.elements)) return {kind::out_of_bounds, -1};
  }
  out = v;
  return {};
}

/// A slice or select moves the data by n strides (as narrow does) where that is a pointer: data
/// not null, at most the int64 maximum in bytes, and an address that does not wrap.
inline void move(const world& w, view& v, std::int64_t n, std::int64_t stride) {
  const i128 by = i128{n} * stride; // up to 2^126: compared before it is scaled
  if (v.null || by > INT64_MAX / 4) return;
  if (i128{w.address} + (v.offset + by) * 4 <= i128{UINT64_MAX}) v.offset += by;
}

inline outcome slice(const world& w, const view& v, std::uint64_t dim, std::int64_t begin, std::int64_t end, view& out) {
  if (dim >= static_cast<std::uint64_t>(v.rank)) return {kind::invalid_argument, static_cast<int>(dim)};
  const int d = static_cast<int>(dim);
  if (begin < 0 || end < begin || end > v.ext[d]) return {kind::out_of_bounds, d};
  out = v;
  move(w, out, begin, v.str[d]);
  out.ext[d] = end - begin;
  return {};
}

inline outcome select(const world& w, const view& v, std::uint64_t dim, std::int64_t i, view& out) {
  if (dim >= static_cast<std::uint64_t>(v.rank)) return {kind::invalid_argument, static_cast<int>(dim)};
  const int d = static_cast<int>(dim);
  if (i < 0 || i >= v.ext[d]) return {kind::out_of_bounds, d};
  out = v;
  move(w, out, i, v.str[d]);
  out.rank = v.rank - 1;
  for (int r = d; r + 1 < v.rank; ++r) out.ext[r] = v.ext[r + 1], out.str[r] = v.str[r + 1];
  return {};
}

inline outcome permute(const view& v, const int* order, view& out) {
  bool seen[max_rank] = {};
  for (int r = 0; r < v.rank; ++r) {
    if (order[r] < 0 || order[r] >= v.rank || seen[order[r]]) return {kind::invalid_argument, -1};
    seen[order[r]] = true;
  }
  out = v;
  for (int r = 0; r < v.rank; ++r) out.ext[r] = v.ext[order[r]], out.str[r] = v.str[order[r]];
  return {};
}

inline outcome transpose(const view& v, std::uint64_t a, std::uint64_t b, view& out) {
  if (a >= static_cast<std::uint64_t>(v.rank)) return {kind::invalid_argument, static_cast<int>(a)};
  if (b >= static_cast<std::uint64_t>(v.rank)) return {kind::invalid_argument, static_cast<int>(b)};
  out = v;
  out.ext[a] = v.ext[b], out.str[a] = v.str[b];
  out.ext[b] = v.ext[a], out.str[b] = v.str[a];
  return {};
}

/// Packed in row-major order; dimensions of extent 1 may have any stride; a view without
/// elements is contiguous.
inline bool contiguous(const view& v) {
  if (count_of(v) == 0) return true;
  i128 expected = 1;
  for (int r = v.rank; r-- > 0;) {
    if (v.ext[r] != 1 && v.str[r] != expected) return false;
    expected *= v.ext[r];
  }
  return true;
}

inline outcome reshape(const world& w, const view& v, int rank, const std::int64_t* ext, view& out) {
  if (!contiguous(v)) return {kind::non_contiguous, -1};
  view shaped;
  shaped.rank = rank;
  bool negative = false;
  for (int r = 0; r < rank; ++r) shaped.ext[r] = ext[r], negative |= ext[r] < 0;
  if (negative || count_of(shaped) != count_of(v)) return {kind::shape_mismatch, -1};
  // With elements every extent is at most the count, and the largest offset the count less one.
  for (int r = 0; r < rank; ++r)
    if (ext[r] > w.max()) return {kind::index_overflow, r};
  i128 str[max_rank];
  row_major(w, rank, ext, str);
  for (int r = 0; r < rank; ++r) shaped.str[r] = static_cast<std::int64_t>(str[r]);
  shaped.offset = v.offset;
  shaped.null = v.null;
  out = shaped;
  return {};
}

/// libcu++'s own checks of a layout_stride mapping (on with CCCL_ENABLE_ASSERTIONS): the
/// dimensions in a stable sort by stride, an extent of 0 or 1 before a larger one of the same
/// stride, each stride at least the one before times its extent; and the sum of
/// (extent - 1) * stride over the dimensions before the first extent of 0 below the index maximum.
inline bool libcudacxx_maps(const world& w, const view& v) {
  int p[max_rank];
  for (int r = 0; r < v.rank; ++r) p[r] = r;
  for (int i = 0; i < v.rank; ++i)
    for (int j = 0; j + 1 < v.rank - i; ++j) {
      const bool swap = v.str[p[j]] > v.str[p[j + 1]] || (v.str[p[j]] == v.str[p[j + 1]] && v.ext[p[j]] > v.ext[p[j + 1]]);
      if (swap) {
        const int t = p[j];
        p[j] = p[j + 1];
        p[j + 1] = t;
      }
    }
  for (int i = 1; i < v.rank; ++i)
    if (i128{v.str[p[i]]} < i128{v.str[p[i - 1]]} * v.ext[p[i - 1]]) return false;
  i128 sum = 0;
  for (int r = 0; r < v.rank && v.ext[r] != 0; ++r) sum += i128{v.ext[r] - 1} * v.str[r];
  return sum < w.max();
}

/// to_mdspan: the preconditions of a layout_stride mapping (C++23 [mdspan.layout.stride.cons]):
/// every stride > 0, some permutation P of the dimensions with s[P[i]] >= s[P[i-1]] * e[P[i-1]]
/// (every permutation is tried), and the required span size representable in the index type:
/// 0 without elements, else the largest offset + 1. `mapped`: the view the mdspan maps, which a
/// view back from it must be; a view without elements whose strides libcu++'s own checks refuse
/// (libcudacxx_maps) gets row-major strides over its dimensions before the first extent of 0,
/// then those of extent 0, then the others by extent (stable), each extent counted as at least
/// 1, every stride at most the index maximum (else it is refused).
inline outcome to_mdspan(const world& w, const view& v, view& mapped) {
  mapped = v;
  for (int r = 0; r < v.rank; ++r)
    if (v.str[r] <= 0) return {kind::invalid_argument, r};
  int p[max_rank];
  for (int r = 0; r < v.rank; ++r) p[r] = r;
  bool some = false;
  // Heap's algorithm, iteratively: every permutation of p.
  int c[max_rank] = {};
  const auto fits = [&] {
    for (int i = 1; i < v.rank; ++i)
      if (i128{v.str[p[i]]} < i128{v.str[p[i - 1]]} * v.ext[p[i - 1]]) return false;
    return true;
  };
  some = fits();
  for (int i = 1; i < v.rank && !some;) {
    if (c[i] < i) {
      const int j = i % 2 == 0 ? 0 : c[i];
      const int t = p[j];
      p[j] = p[i];
      p[i] = t;
      some = fits();
      ++c[i];
      i = 1;
    } else {
      c[i] = 0;
      ++i;
    }
  }
  if (!some) return {kind::invalid_argument, -1};
  if (count_of(v) != 0) {
    i128 str[max_rank];
    for (int r = 0; r < v.rank; ++r) str[r] = v.str[r];
    if (largest_of(v.rank, v.ext, str) + 1 > w.max()) return {kind::invalid_argument, -1};
    return {};
  }
  if (libcudacxx_maps(w, v)) return {};
  int order[max_rank];
  int n = 0, first_zero = 0;
  while (v.ext[first_zero] != 0) ++first_zero;
  for (int r = first_zero - 1; r >= 0; --r) order[n++] = r;
  for (int r = first_zero; r < v.rank; ++r)
    if (v.ext[r] == 0) order[n++] = r;
  bool placed[max_rank] = {};
  for (int i = 0; i < n; ++i) placed[order[i]] = true;
  while (n < v.rank) { // the rest by extent, ties in dimension order
    int next = -1;
    for (int r = 0; r < v.rank; ++r)
      if (!placed[r] && (next < 0 || v.ext[r] < v.ext[next])) next = r;
    placed[next] = true;
    order[n++] = next;
  }
  i128 stride = 1;
  for (int i = 0; i < v.rank; ++i) {
    if (stride > w.max()) return {kind::invalid_argument, -1};
    mapped.str[order[i]] = static_cast<std::int64_t>(stride);
    stride *= v.ext[order[i]] < 1 ? 1 : v.ext[order[i]];
  }
  return {};
}

/// An access of `width` consecutive elements (0: one element) at idx: the element offset it
/// reaches in `at`.
inline outcome access(const view& v, const std::int64_t* idx, int width, std::int64_t buffer_alignment_elements, i128& at) {
  const std::int64_t n = width == 0 ? 1 : width;
  for (int r = 0; r < v.rank; ++r) {
    const std::int64_t elements = r == v.rank - 1 ? n : 1;
    if (idx[r] < 0 || i128{idx[r]} + elements > v.ext[r]) return {kind::out_of_bounds, r};
  }
  at = v.offset;
  for (int r = 0; r < v.rank; ++r) at += i128{idx[r]} * v.str[r];
  if (width > 0) {
    if (v.str[v.rank - 1] != 1) return {kind::non_contiguous, -1};
    const i128 bytes = (at + buffer_alignment_elements) * 4;
    if (bytes % (4 * width) != 0) return {kind::misaligned, -1};
  }
  return {};
}

/// bounded(value, bound): 0 <= value < bound as numbers.
inline bool in_bound(i128 value, i128 bound) { return value >= 0 && value < bound; }

} // namespace fuzz_model
