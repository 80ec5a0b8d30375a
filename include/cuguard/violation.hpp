// SPDX-License-Identifier: Apache-2.0
// cuguard::violation: the plain record of one bad access, fillable in device code.
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cuda/std/source_location>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// What went wrong.
enum class violation_kind : unsigned char {
  none,               ///< no violation recorded
  out_of_bounds,      ///< an index, slice or range outside the extent (or a negative one)
  index_overflow,     ///< an offset that does not fit the view's index type
  non_contiguous,     ///< an operation that needs contiguous storage got strided storage
  misaligned,         ///< a vector access whose address is not aligned to its width, or a view made over data not aligned for its element type
  use_after_free,     ///< an access through a view whose allocation was released
  wrong_memory_space, ///< memory of the wrong space (host memory in a kernel, another device)
  shape_mismatch,     ///< shapes that had to agree do not
  null_data,          ///< a view of one or more elements over a null pointer
  invalid_argument,   ///< a dimension, permutation, extent or stride that cannot be valid
  non_finite,         ///< an inf or NaN where expect_finite asked for a finite value (not a memory error)
  divergent_barrier,  ///< a __syncthreads() that not every thread of the block reached (emulation)
  shared_race,        ///< two threads of a block touched one shared element, one writing, with no barrier between (emulation)
  illegal_address,    ///< an access that faulted: memory the process has not mapped, or may not write (emulation: SIGSEGV or SIGBUS in a kernel's thread)
  uninitialized_read, ///< a kernel read device memory that nothing wrote (emulation: initcheck, cuguard_emulate(... SANITIZE))
  annotation_violation, ///< an access NVTX's memory annotations forbid: in a pool outside its regions, or without the permission (emulation, SANITIZE)
  conversion_overflow, ///< a float converted implicitly to an integer that cannot hold it (NaN, inf, out of range), whose GPU value (saturated) the host does not give (emulation, sanitize=True)
  shift_overflow,      ///< a shift by a negative count or by the type's width or more, whose GPU value (the count clamped) the host does not give (emulation, sanitize=True)
};

/// The operation that found the violation.
enum class operation : unsigned char {
  access,            ///< operator() / operator[]
  vector_load,       ///< load<N>
  vector_store,      ///< store<N>
  slice,             ///< slice(dim, begin, end)
  select,            ///< select(dim, i)
  permute,           ///< permute / transpose
  reshape,           ///< reshape
  make_view,         ///< view construction
  bounded,           ///< bounded(value, bound)
  expect_contiguous, ///< expect_contiguous(view)
  expect_shape,      ///< expect_shape(view, extents)
  release,           ///< release(pointer) of the lifetime registry
  launch,            ///< a view argument checked by cuguard::launch before the kernel runs
  expect_finite,     ///< expect_finite(value, view, i...)
  to_mdspan,         ///< to_mdspan() (or the conversion to an mdspan)
  barrier,           ///< __syncthreads() (found by emulation)
  subscript,         ///< a[i] of an ATen-style accessor (cuguard::torch), on a dimension before the last
  warp_sync,         ///< __syncwarp(mask) or a *_sync warp intrinsic (found by emulation)
  raw_access,        ///< a load or store through a raw pointer (emulation, cuguard.torch's sanitize)
  pointer_access,    ///< p[i], *p, p->m, an atomic or a load/store intrinsic through a cuguard::ptr
};

/// Where a view's memory lives, as far as cuguard knows.
enum class memory_space : unsigned char {
  unknown, ///< not known (not tracked, or no CUDA runtime to ask)
  host,    ///< pageable host memory: device code must not touch it
  pinned,  ///< page-locked host memory, mapped for device access
  device,  ///< device memory: host code must not touch it
  managed, ///< managed (unified) memory: both may
  shared,  ///< a block's shared memory (emulation: a view made in a kernel over `__shared__` or dynamic shared memory)
};

/// Where an index value came from, when it came through a checked_index.
enum class index_origin : unsigned char {
  none,       ///< a plain integer
  index_view, ///< read from a view by index_from(view, i...)
  bounded,    ///< checked against a bound by bounded(value, bound)
};

/// Which figure of a new view's shape a make_view report is about (violation::figure).
enum class shape_figure : unsigned char {
  none,           ///< not a figure of the shape
  extent,         ///< an extent as given
  stride,         ///< a stride as given
  largest_offset, ///< the largest offset the view reaches
  pointer_offset, ///< the largest offset, past the most a pointer to the elements can be offset by
  element_count,  ///< the number of elements
};

namespace detail {
/// Offsets and counts of a view's shape, counted unsigned and held at 2^63 (above every Index
/// maximum) once they pass it: a record's `value` of largest_offset, pointer_offset or
/// element_count may hold it (read as uint64).
inline constexpr std::uint64_t shape_cap = std::uint64_t{1} << 63;
} // namespace detail

/// A source position copied into a record (file, function, line).
struct site_record {
  char file[192];
  char function[96];
  unsigned line;
};

/// The kernel launch a device violation belongs to.
struct launch_record {
  std::uint64_t id;     ///< launch number, counted from 1; 0: not recorded
  char kernel[96];      ///< kernel name
  site_record site;     ///< where launch() was called
  // grid and block: six numbers in a row, 8-byte aligned (device code writes them in pairs).
  alignas(8) unsigned grid[3]; ///< grid dimensions
  unsigned block[3];           ///< block dimensions
};

/// One violation, as a plain record: every string is copied in, so the record stays readable on
/// the host whatever memory the view's label or the source file name lived in.
struct violation {
  static constexpr int max_rank = 8;

  violation_kind kind;     ///< what went wrong
  operation op;            ///< what found it
  char label[64];          ///< label of the view
  char type[32];           ///< element type of the view ("float", "const int")
  char file[192];          ///< file of the offending expression (the caller's, not cuguard's)
  unsigned line;           ///< line of the offending expression
  char function[96];       ///< function containing the offending expression
  int rank;                ///< rank of the view
  int dim;                 ///< offending dimension, -1 when none applies
  std::int64_t index[max_rank];  ///< indices of the access (rank entries)
  std::int64_t extent[max_rank]; ///< extents of the view
  std::int64_t stride[max_rank]; ///< strides of the view, in elements
  // The numbers of the operation that failed, each with one meaning (0 where it does not apply).
  std::int64_t width;      ///< a vector load or store: elements in the access (0: one element)
  /// The number that failed: select's index, slice's begin, bounded's value; make_view's extent,
  /// stride, largest offset or element count (see figure); reshape's element count asked for;
  /// null_data's element count; release's address; non_finite: the bits of the double;
  /// shared_race: how the two accesses conflict (0: this thread read what the other wrote,
  /// 1: wrote what the other read, 2: both wrote).
  std::int64_t value;
  std::int64_t value_end;  ///< slice's end
  /// What `value` was held against: bounded's bound, the index type's maximum (index_overflow),
  /// the view's element count (reshape).
  std::int64_t limit;
  shape_figure figure;     ///< make_view (invalid_argument, index_overflow): what `value` is
  bool value_unsigned;     ///< bounded: `value` holds an unsigned number (read its bits as uint64)
  bool limit_unsigned;     ///< bounded: `limit` holds an unsigned number
  /// misaligned: the element's address; make_view over part of a tracked allocation: the view's
  /// first byte in it.
  std::int64_t address;
  /// misaligned: the alignment the access needs; make_view over part of a tracked allocation:
  /// the bytes the view spans.
  std::int64_t bytes;
  int kernel_device;       ///< wrong_memory_space of a kernel argument: the device the kernel runs on
  std::uint32_t slot;      ///< use_after_free and pointer accesses: the lifetime slot of the view's token
  std::uint32_t generation;///< use_after_free and pointer accesses: the generation of the view's token
  /// What was expected or asked for: reshape and expect_shape {extents}; non_contiguous
  /// {contiguous strides}; permute {the permutation}.
  std::int64_t expected[max_rank];
  int expected_rank;       ///< entries in `expected`

  index_origin origin;                 ///< where index[dim] came from
  char origin_label[64];               ///< label of the index view it was read from
  int origin_rank;                     ///< rank of that view
  std::int64_t origin_index[max_rank]; ///< position in that view (bounded: origin_index[0] is the bound)

  char alloc_label[64];    ///< label of the tracked allocation (use_after_free, make_view, pointer accesses)
  std::int64_t alloc_bytes; ///< its size in bytes
  site_record alloc_site;  ///< where it was tracked
  site_record free_site;   ///< where it was released

  /// Pointer accesses whose bounds host code took from a tensor (cuguard.torch's checked
  /// pointers): the tensor as the source spelled it (`x` of `x.data_ptr<float>()`), and the one
  /// whose elements the access's address lies in, where another known tensor holds it.
  char tensor[64];
  char tensor_hit[64];

  memory_space space;      ///< memory space of the view
  int device;              ///< device of the view's memory, -1 if none or unknown

  bool on_device;          ///< found in device code (block, thread and launch are valid)
  // block and thread: six numbers in a row, 8-byte aligned (device code writes them in pairs).
  alignas(8) unsigned block[3]; ///< blockIdx of the offending thread
  unsigned thread[3];      ///< threadIdx of the offending thread
  launch_record launch;    ///< the launch the kernel belongs to
  std::uint64_t count;     ///< violations seen since the last check, this one included (see count_is_lower_bound)
  /// True when `count` is a lower bound: under the default device policy a thread stops at its
  /// first violation, so its later ones are not counted.
  bool count_is_lower_bound;
  /// divergent_barrier: the other thread of the block (threadIdx), and the barrier it waits at
  /// (line 0: it returned from the kernel without reaching the barrier at file:line).
  /// shared_race: the other thread, and where it touched the element.
  unsigned other_thread[3];
  site_record other_site;
};

namespace detail {

/// Copies `src` into `dst`, truncating at the end; null becomes "".
template <std::size_t N>
CUGUARD_HOST_DEVICE inline void copy_text(char (&dst)[N], const char* src) noexcept {
  std::size_t i = 0;
  if (src != nullptr) {
    for (; i + 1 < N && src[i] != '\0'; ++i) dst[i] = src[i];
  }
  dst[i] = '\0';
}

/// Copies `src` into `dst`, keeping the end of a long text ("...ples/bug.cu"): for file paths.
template <std::size_t N>
CUGUARD_HOST_DEVICE inline void copy_tail(char (&dst)[N], const char* src) noexcept {
  static_assert(N > 4, "copy_tail: room for \"...\" and one character");
  if (src == nullptr) {
    dst[0] = '\0';
    return;
  }
  std::size_t len = 0;
  while (src[len] != '\0') ++len;
  if (len < N) {
    copy_text(dst, src);
    return;
  }
  dst[0] = dst[1] = dst[2] = '.';
  const char* tail = src + (len - (N - 4));
  for (std::size_t i = 0; i < N - 4; ++i) dst[3 + i] = tail[i];
  dst[N - 1] = '\0';
}

CUGUARD_HOST_DEVICE inline void copy_site(site_record& dst, const cuda::std::source_location& where) noexcept {
  copy_tail(dst.file, where.file_name());
  copy_text(dst.function, where.function_name());
  dst.line = static_cast<unsigned>(where.line());
}

} // namespace detail

CUGUARD_IMPL_END_NAMESPACE
