// SPDX-License-Identifier: Apache-2.0
// The cold side of every check: fills a violation record and hands it to the host or device policy.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/device.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/index/index_args.hpp>
#include <cuguard/detail/record/facts.hpp>
#include <cuguard/detail/record/completion.hpp>
#include <cuguard/detail/record/fields.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/violation.hpp>
#if CUGUARD_IMPL_CHECKS
#  include <cuguard/violation_error.hpp>
#endif

#include <cuda/std/source_location>

#include <cstdint>
#include <cstring>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// True in code that runs as part of a kernel: the device pass of nvcc, or an emulated kernel.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool in_device_code() noexcept { return platform::in_kernel(); }

/// A short list of integers passed by value to a cold function (by value: taking the address
/// of a local array would push it to local memory on the device).
struct dims {
  std::int64_t v[violation::max_rank];
  int n;
};

/// The numbers of a failed view operation, by the names of violation's fields (value,
/// value_end, limit, figure), passed by value.
struct numbers {
  std::int64_t value;
  std::int64_t value_end;
  std::int64_t limit;
  shape_figure figure;
};

/// The element type's name as reports write it ("const float").
template <class T>
CUGUARD_HOST_DEVICE inline void fill_type(char (&dst)[32]) noexcept {
  copy_type(dst, std::is_const<T>::value, type_name<std::remove_cv_t<T>>::value);
}

/// The fields of a view in a record (view_field_count<View> of them): label, flags and element
/// size (view_flags), type, rank, memory space and device, shape and strides of `view`.
template <class View>
inline constexpr int view_field_count = 5 + 2 * static_cast<int>(View::rank());

static_assert(offsetof(violation, rank) % 8 == 0 && offsetof(violation, dim) == offsetof(violation, rank) + 4,
              "violation: rank and dim are two numbers in a row, 8-byte aligned (one step writes both)");
static_assert(offsetof(violation, kind) % 2 == 0 && offsetof(violation, op) == offsetof(violation, kind) + 1 &&
                  sizeof(violation_kind) == 1 && sizeof(operation) == 1,
              "violation: kind and op are two bytes in a row, 2-byte aligned (one step writes both)");
static_assert(offsetof(violation, space) % 8 == 0 && offsetof(violation, device) == offsetof(violation, space) + 4 &&
                  sizeof(memory_space) == 1,
              "violation: space, then device 4 bytes on, 8-byte aligned (one step writes both)");
static_assert(offsetof(pending, label_on_host) % 8 == 0 &&
                  offsetof(pending, origin_label_on_host) == offsetof(pending, label_on_host) + 1 &&
                  offsetof(pending, type_const) == offsetof(pending, label_on_host) + 2 &&
                  offsetof(pending, access) == offsetof(pending, label_on_host) + 3 &&
                  offsetof(pending, element_bytes) == offsetof(pending, label_on_host) + 4 &&
                  sizeof(pending::element_bytes) == 4,
              "pending: the four flags and element_bytes are 8 bytes in a row, 8-byte aligned (one step writes them)");

/// The 8 bytes of a record from pending::label_on_host on: the flags of a view and its element
/// size. `access` and `origin_label_on_host` are written false: fail_access sets `access` with a
/// field of its own, written after the view's fields (view_then puts them first), and
/// classify_access sets `origin_label_on_host` when it completes the record.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE std::uint64_t view_flags(bool label_on_host, bool type_const,
                                                                      std::uint32_t element_bytes) noexcept {
  return static_cast<std::uint64_t>(label_on_host) | static_cast<std::uint64_t>(type_const) << 16 |
         static_cast<std::uint64_t>(element_bytes) << 32;
}

/// Field k of the fields of `view`.
template <class View>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write view_field(const record& r, const View& view, int k) {
  using element = typename View::element_type;
  constexpr std::size_t rank = View::rank();
  switch (k) {
  case 0: return put(r, r.p.label, address_of(view.label_ref().text));
  case 1:
    return put_bytes<8>(r, r.p.label_on_host, view_flags(view.label_ref().on_host, std::is_const<element>::value,
                                                         static_cast<std::uint32_t>(sizeof(element))));
  case 2: return put(r, r.p.type, address_of(type_name<std::remove_cv_t<element>>::value));
  case 3: return put_pair(r, r.v.rank, static_cast<unsigned>(rank), static_cast<unsigned>(-1)); // dim -1: none yet
  case 4:
    return put_bytes<8>(r, r.v.space,
                        static_cast<std::uint64_t>(view.space()) |
                            static_cast<std::uint64_t>(static_cast<std::uint32_t>(view.device())) << 32);
  default: break;
  }
  k -= 5;
  if (k < static_cast<int>(rank)) return put_nth<rank>(r, r.v.extent, k, [&](auto i) { return view.extent(i); });
  return put_nth<rank>(r, r.v.stride, k - static_cast<int>(rank), [&](auto i) { return view.stride(i); });
}

/// The fields of a record about `view`: those of the view, then `own(r, k)`, field k of the
/// record's own (for use within the expression that writes the record: it refers to both).
template <class View, class Own>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE auto view_then(const View& view, const Own& own) {
  return [&view, &own](const record& r, int k) {
    return k < view_field_count<View> ? view_field(r, view, k) : own(r, k - view_field_count<View>);
  };
}

/// What a record says of a view (view_field's fields), gathered by value: host code writes it
/// with one function for every view type. Host code is compiled at nvcc's default -O0, where
/// each view type's own copy of the record writing would be compiled in every translation unit.
struct view_facts {
  label_ref label;
  const char* type;
  bool type_const;
  unsigned element_bytes;
  int rank;
  memory_space space;
  int device;
  std::int64_t extent[violation::max_rank];
  std::int64_t stride[violation::max_rank];
};

/// The facts of `view` (host code).
template <class View>
view_facts facts_of(const View& view) {
  using element = typename View::element_type;
  view_facts f{view.label_ref(),
               type_name<std::remove_cv_t<element>>::value,
               std::is_const<element>::value,
               static_cast<unsigned>(sizeof(element)),
               static_cast<int>(View::rank()),
               view.space(),
               view.device(),
               {},
               {}};
  for (std::size_t i = 0; i < View::rank(); ++i) {
    f.extent[i] = static_cast<std::int64_t>(view.extent(i));
    f.stride[i] = static_cast<std::int64_t>(view.stride(i));
  }
  return f;
}

/// Writes the facts of a view into `r`, as view_field does field by field (host code).
inline void fill_view(record& r, const view_facts& f) noexcept {
  r.p.label = address_of(f.label.text);
  r.p.label_on_host = f.label.on_host;
  r.p.type = address_of(f.type);
  r.p.type_const = f.type_const;
  r.p.element_bytes = f.element_bytes;
  r.v.rank = f.rank;
  r.v.dim = -1;
  r.v.space = f.space;
  r.v.device = f.device;
  for (int i = 0; i < f.rank; ++i) {
    r.v.extent[i] = f.extent[i];
    r.v.stride[i] = f.stride[i];
  }
}

/// Writes the fields of `view` into `r` (host code).
template <class View>
void fill_view(record& r, const View& view) {
  fill_view(r, facts_of(view));
}

#if CUGUARD_IMPL_DEVICE_CONTINUE
/// Storage that a recorded-and-continued access is redirected to.
template <class T>
CUGUARD_HOST_DEVICE T& scratch() noexcept {
  using bare = std::remove_cv_t<T>;
  struct alignas(alignof(bare) > alignof(double) ? alignof(bare) : alignof(double)) storage {
    unsigned char bytes[sizeof(bare)];
  };
#  if CUGUARD_IMPL_EMULATION
  static thread_local storage s; // aligned like T (blocks of a grid may run on several OS threads)
#  else
  static storage s; // aligned like T: a redirected float4 access is a 16-byte access
#  endif
  return *reinterpret_cast<T*>(s.bytes);
}
#endif

/// The allocation behind a use_after_free record, from the token it recorded (slot, generation).
inline void describe_stale_allocation(violation& v) {
  if (v.kind != violation_kind::use_after_free || v.alloc_label[0] != '\0') return;
  const lifetime_token t{v.slot, v.generation};
  if (!describe_allocation(t, v)) copy_text(v.alloc_label, "(slot reused since)");
}

/// Host policy for a violation found in host code: fill the record, then throw or abort.
#if !CUGUARD_IMPL_CHECKS
// Declared only: unchecked code never reports (every call of it sits in a discarded branch), so
// an unchecked translation unit need not parse the report's text and exception.
template <class Fill>
[[noreturn]] void report_host(const Fill& fill, const cuda::std::source_location& where);
#else
/// `fill(r)` writes the numbers of the violation into the record `r` (a detail::record).
template <class Fill>
[[noreturn]] void report_host(const Fill& fill, const cuda::std::source_location& where) {
  record r{};
  violation& v = r.v;
  pending& p = r.p;
  v.dim = -1;
  fill(r);
  p.file = address_of(where.file_name());
  p.function = address_of(where.function_name());
  v.line = static_cast<unsigned>(where.line());
  finish_here(v, p);
  describe_stale_allocation(v);
  v.count = 1;
  raise_host(v);
}
#endif

#if (CUGUARD_IMPL_DEVICE_PASS && CUGUARD_IMPL_CHECKS) || CUGUARD_IMPL_EMULATION

/// A violation in a kernel launched before any report channel existed: says where, then traps.
[[noreturn]] CUGUARD_IMPL_NOINLINE CUGUARD_HOST_DEVICE inline void no_channel(cuda::std::source_location where) {
  const platform::position at = platform::thread_position();
  printf("cuguard: violation at %s:%u in block (%u,%u,%u) thread (%u,%u,%u), and no report channel: launch "
         "kernels with cuguard::launch, and include <cuguard/cuguard.hpp> (or the runtime) in the kernel's "
         "translation unit\n",
         where.file_name(), static_cast<unsigned>(where.line()), at.block[0], at.block[1], at.block[2], at.thread[0],
         at.thread[1], at.thread[2]);
  platform::trap();
}

// blockIdx and threadIdx, gridDim and blockDim: six 32-bit numbers each, in a row and 8-byte
// aligned, written two at a time.
static_assert(offsetof(violation, block) % 8 == 0 && offsetof(violation, thread) == offsetof(violation, block) + 12,
              "violation: block and thread are six numbers in a row, 8-byte aligned");
static_assert(offsetof(violation, launch) % 8 == 0 && offsetof(launch_record, grid) % 8 == 0 &&
                  offsetof(launch_record, block) == offsetof(launch_record, grid) + 12,
              "launch_record: grid and block are six numbers in a row, 8-byte aligned");

/// The fields every device record has (device_field_count of them, and write_position's): source
/// position, the thread, the launch. What is the same in every device record the reader sets
/// (read_device_record: on_device, count_is_lower_bound).
inline constexpr int device_field_count = 5;

/// Field k of the fields every device record has (but those of write_position).
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write device_field(const record& r, int k, const device_state& state,
                                                                      const cuda::std::source_location& where,
                                                                      std::uint64_t launch) {
  switch (k) {
  case 0: return put(r, r.p.file, address_of(where.file_name()));
  case 1: return put(r, r.p.function, address_of(where.function_name()));
  case 2: return put(r, r.v.line, where.line());
  case 3: return put(r, r.v.launch.id, state.launch_id != nullptr ? *state.launch_id : 0); // the device's last launch
  default: return put(r, r.p.view_launch, launch); // check() decides between the two (resolve_launch)
  }
}

/// Writes where the calling thread runs into `r`: blockIdx and threadIdx (violation::block and
/// thread), gridDim and blockDim (launch_record::grid and block), six 32-bit numbers in a row each.
/// In device code one asm statement for every check (the optimizer has none of it to work on:
/// cicc 6% and ptxas 8% fewer instructions than six steps of write_fields, bench/compile-time.md).
/// A statement the compiler does not move: it would otherwise read the thread's position at the
/// start of the kernel and hold it in registers through every loop, for the cold path alone.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void write_position(record& r) {
#  if CUGUARD_IMPL_DEVICE_PASS
  // A loop of six steps, one pair of special registers each (its labels are local to the braces):
  // straight-line, ptxas would read all twelve ahead of their stores, into registers of their own.
  asm volatile("{\n\t"
               ".reg .b32 a, b, k;\n\t"
               ".reg .pred p;\n\t"
               "mov.u32 k, 0;\n"
               "STEP:\n\t"
               "setp.eq.u32 p, k, 0;\n\t@p bra.uni K0;\n\t"
               "setp.eq.u32 p, k, 1;\n\t@p bra.uni K1;\n\t"
               "setp.eq.u32 p, k, 2;\n\t@p bra.uni K2;\n\t"
               "setp.eq.u32 p, k, 3;\n\t@p bra.uni K3;\n\t"
               "setp.eq.u32 p, k, 4;\n\t@p bra.uni K4;\n\t"
               "mov.u32 a, %%ntid.y;\n\tmov.u32 b, %%ntid.z;\n\tst.v2.u32 [%1+16], {a, b};\n\tbra.uni NEXT;\n"
               "K0:\n\tmov.u32 a, %%ctaid.x;\n\tmov.u32 b, %%ctaid.y;\n\tst.v2.u32 [%0], {a, b};\n\tbra.uni NEXT;\n"
               "K1:\n\tmov.u32 a, %%ctaid.z;\n\tmov.u32 b, %%tid.x;\n\tst.v2.u32 [%0+8], {a, b};\n\tbra.uni NEXT;\n"
               "K2:\n\tmov.u32 a, %%tid.y;\n\tmov.u32 b, %%tid.z;\n\tst.v2.u32 [%0+16], {a, b};\n\tbra.uni NEXT;\n"
               "K3:\n\tmov.u32 a, %%nctaid.x;\n\tmov.u32 b, %%nctaid.y;\n\tst.v2.u32 [%1], {a, b};\n\tbra.uni NEXT;\n"
               "K4:\n\tmov.u32 a, %%nctaid.z;\n\tmov.u32 b, %%ntid.x;\n\tst.v2.u32 [%1+8], {a, b};\n"
               "NEXT:\n\t"
               "add.u32 k, k, 1;\n\t"
               "setp.lt.u32 p, k, 6;\n\t"
               "@p bra.uni STEP;\n\t"
               "}"
               :
               : "l"(&r.v.block[0]), "l"(&r.v.launch.grid[0])
               : "memory");
#  else
  const platform::emulated_thread& t = *platform::running;
  for (int a = 0; a < 3; ++a) {
    r.v.block[a] = t.block[a];
    r.v.thread[a] = t.thread[a];
    r.v.launch.grid[a] = t.grid[a];
    r.v.launch.block[a] = t.block_dim[a];
  }
#  endif
}

/// Counts a violation in a report channel (`ch` and its `counters`) and claims its record:
/// true if the caller is to write `ch->rec` (false: an earlier violation holds it), then
/// publish_record.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool claim_record(channel* ch, channel_counters* counters) {
  platform::atomic_add(&counters->count, 1ull);
  if (platform::atomic_cas(&counters->claim, 0u, 1u) != 0u) return false;
  *static_cast<volatile unsigned int*>(&ch->started) = 1u;
  return true;
}

/// Makes the claimed record readable: the host (check()) and threads waiting to trap see it
/// complete.
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void publish_record(channel* ch, channel_counters* counters) {
  platform::fence_system();
  *static_cast<volatile unsigned int*>(&ch->ready) = 1u;
  platform::fence_system();
  platform::atomic_exchange(&counters->ready, 1u);
}

/// Device side of a violation: count it, let the first one write the record, then stop the
/// thread (default), continue (the caller redirects the access) or trap. `fields(r, k)` gives
/// field k of the `count` fields of the violation; the host completes the record when it reads
/// it (check()). The record was cleared by the host, so only what applies is written. `launch`
/// is the launch number the view carries (0: none), recorded next to the device's last launch
/// number.
template <class Fields>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void device_report(
    const Fields& fields, int count, const cuda::std::source_location& where, std::uint64_t launch) {
  const device_state& state = current_device_state<Fields>();
  channel* ch = state.report;
  channel_counters* counters = state.counters;
  if (ch == nullptr || counters == nullptr) no_channel(where);
  if (claim_record(ch, counters)) {
    record& rec = ch->rec;
    write_position(rec);
    write_fields(
        rec,
        [&](const record& r, int k) {
          return k < device_field_count ? device_field(r, k, state, where, launch) : fields(r, k - device_field_count);
        },
        device_field_count + count);
#  if CUGUARD_IMPL_DEVICE_TRAP
    // The host cannot read device memory once the kernel trapped: copy the texts now.
    rec.v.on_device = true;
    finish_here(rec.v, rec.p);
#  endif
    publish_record(ch, counters);
  }
#  if CUGUARD_IMPL_DEVICE_TRAP
  // Let the record be complete before any thread stops the grid.
  for (int spin = 0; spin < (1 << 20) && platform::atomic_load(&counters->ready) == 0u; ++spin) {
  }
  platform::fence_system();
  platform::trap();
#  elif !CUGUARD_IMPL_DEVICE_CONTINUE
  platform::stop_thread();
#  endif
}

#endif

/// Hands a violation to the policy of the code it was found in. `fields(r, k)` gives field k of
/// the `count` fields of the violation (the numbers of the violation, and what is still to
/// complete the record from); the source position, thread and launch (`launch`: the number the
/// view carries, if any) are added here.
/// In device code (and emulated kernels) the record goes to the report channel and the thread
/// stops, traps, or (CUGUARD_ON_DEVICE_VIOLATION_CONTINUE) the function returns. In host code
/// `host()` reports it (throws or aborts; the host_fail functions below): host code does not
/// write the record field by field, so that it compiles no copy of that loop per check.
template <class Fields, class Host>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void report(
    const Fields& fields, int count, const cuda::std::source_location& where, std::uint64_t launch, const Host& host) {
#if CUGUARD_IMPL_DEVICE_PASS
  (void)host;
  device_report(fields, count, where, launch);
#else
#  if CUGUARD_IMPL_EMULATION
  if (platform::in_kernel()) {
    device_report(fields, count, where, launch);
#    if CUGUARD_IMPL_DEVICE_CONTINUE
    return;
#    endif
  }
#  endif
  (void)fields, (void)count, (void)where, (void)launch;
  host();
  __builtin_unreachable(); // host() throws or aborts
#endif
}

/// The same, for a violation whose record host code may write field by field (no view: few
/// fields, one copy per translation unit).
template <class Fields>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void report(
    const Fields& fields, int count, const cuda::std::source_location& where) {
  report(fields, count, where, 0, [&] { report_host([&](record& r) { write_fields(r, fields, count); }, where); });
}

// The host side of fail_access, fail_finite and fail_view: one function each for every view
// type (defined with checks on; unchecked code never reports).

/// A failed element access in host code: `idx` holds its `indices` indices; `origins[i]` the
/// origin of index i where bit i of `with_origin` is set.
[[noreturn]] inline void host_fail_access(const view_facts& view, operation op, int width, std::uint64_t data,
                                          lifetime_token token, const std::int64_t* idx, int indices,
                                          const origin_info* origins, unsigned with_origin,
                                          const cuda::std::source_location& where);
/// A non-finite value found by expect_finite in host code.
[[noreturn]] inline void host_fail_finite(const view_facts& view, std::int64_t bits, const std::int64_t* idx,
                                          int indices, const cuda::std::source_location& where);
/// A failed view operation in host code.
[[noreturn]] inline void host_fail_view(const view_facts& view, violation_kind kind, operation op, int dim, numbers n,
                                        const dims& expected, const cuda::std::source_location& where);

#if CUGUARD_IMPL_CHECKS
[[noreturn]] inline void host_fail_access(const view_facts& view, operation op, int width, std::uint64_t data,
                                          lifetime_token token, const std::int64_t* idx, int indices,
                                          const origin_info* origins, unsigned with_origin,
                                          const cuda::std::source_location& where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        r.v.op = op;
        r.v.width = width;
        r.p.access = true;
        r.p.data = data;
        r.p.token = token;
        for (int i = 0; i < indices; ++i) {
          r.v.index[i] = idx[i];
          if ((with_origin >> i) & 1u) r.p.origins[i] = origins[i];
        }
      },
      where);
}

[[noreturn]] inline void host_fail_finite(const view_facts& view, std::int64_t bits, const std::int64_t* idx,
                                          int indices, const cuda::std::source_location& where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        r.v.kind = violation_kind::non_finite;
        r.v.op = operation::expect_finite;
        r.v.value = bits;
        for (int i = 0; i < indices; ++i) r.v.index[i] = idx[i];
      },
      where);
}

[[noreturn]] inline void host_fail_view(const view_facts& view, violation_kind kind, operation op, int dim, numbers n,
                                        const dims& expected, const cuda::std::source_location& where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        r.v.kind = kind;
        r.v.op = op;
        r.v.dim = dim;
        r.v.value = n.value;
        r.v.value_end = n.value_end;
        r.v.limit = n.limit;
        r.v.figure = n.figure;
        r.v.expected_rank = expected.n;
        for (int i = 0; i < expected.n && i < violation::max_rank; ++i) r.v.expected[i] = expected.v[i];
      },
      where);
}
#endif

/// Index i of the indices of an access, as a run-time i (see nth).
template <class First, class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write put_index(const record& r, int i, const First& i0,
                                                                   const Rest&... rest) {
  const std::int64_t values[] = {i0.value, index_value(rest)...};
  return put_nth<1 + sizeof...(Rest)>(r, r.v.index, i, [&](auto n) { return values[n]; });
}

/// Indices that carry an origin (checked_index), and the fields of one origin in a record.
template <class I>
inline constexpr bool carries_origin = std::is_same<I, first_checked_index>::value || is_checked_index<I>::value;
inline constexpr int origin_field_count = 4 + violation::max_rank;

/// Field k of the origins of the indices `i, more...` (the first at position `at`): only those of
/// indices that carry one.
template <class I, class... More>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write origin_field(const record& r, int at, int k, const I& i,
                                                                      const More&... more) {
  if constexpr (carries_origin<I>) {
    if (k < origin_field_count) {
      const origin_info o = origin_of(i);
      const origin_info& dst = r.p.origins[at];
      switch (k) {
      case 0: return put(r, dst.kind, o.kind);
      case 1: return put(r, dst.rank, o.rank);
      case 2: return put(r, dst.label.text, o.label.text);
      case 3: return put(r, dst.label.on_host, o.label.on_host);
      default:
        return put_nth<violation::max_rank>(r, dst.position, k - 4, [&](auto n) { return o.position[n]; });
      }
    }
    k -= origin_field_count;
  }
  if constexpr (sizeof...(More) > 0) {
    return origin_field(r, at + 1, k, more...);
  } else {
    return field_write{0, 0};
  }
}

/// The cold side of operator(), operator[], load and store: records the access; which check
/// failed is worked out from it when the record is completed (classify_access), so that device
/// code does not evaluate the check's parts again. `width` is 0 for a
/// scalar access and N for a vector access of N elements. Returns (the scratch element the
/// access is redirected to) only under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE.
template <class View, class First, class... Rest>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE typename View::element_type& fail_access(
    View view, operation op, int width, First i0, Rest... rest) {
  constexpr int indices = 1 + static_cast<int>(sizeof...(Rest));
  constexpr int origins = (static_cast<int>(carries_origin<First>) + ... + static_cast<int>(carries_origin<Rest>));
  constexpr int access_fields = 5;
  report(
      view_then(view, [&](const record& r, int k) {
        switch (k) {
        case 0: return put(r, r.v.op, op);
        case 1: return put(r, r.v.width, width);
        case 2: return put(r, r.p.access, true);
        case 3: return put(r, r.p.data, address_of(view.data()));
        case 4: return put(r, r.p.token, view.token());
        default: break;
        }
        k -= access_fields;
        if (k < indices) return put_index(r, k, i0, rest...);
        return origin_field(r, 0, k - indices, i0, rest...);
      }),
      view_field_count<View> + access_fields + indices + origins * origin_field_count, i0.where, view.launch_number(),
      [&] {
        const std::int64_t idx[] = {i0.value, index_value(rest)...};
        origin_info from[static_cast<std::size_t>(indices)];
        unsigned with_origin = 0;
        int at = 0;
        const auto note = [&](const auto& i) {
          (void)i;
          if constexpr (carries_origin<std::decay_t<decltype(i)>>) {
            from[at] = origin_of(i);
            with_origin |= 1u << at;
          }
          ++at;
        };
        note(i0);
        (note(rest), ...);
        host_fail_access(facts_of(view), op, width, address_of(view.data()), view.token(), idx, indices, from,
                         with_origin, i0.where);
      });
#if CUGUARD_IMPL_DEVICE_CONTINUE
  return scratch<typename View::element_type>();
#endif
}

/// The cold side of expect_finite.
template <class View, class... Rest>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_finite(View view, double value,
                                                                                  first_index i0, Rest... rest) {
  static_assert(sizeof value == sizeof(std::int64_t), "double is 64 bits");
  std::int64_t bits;
#if CUGUARD_IMPL_DEVICE_PASS
  bits = __double_as_longlong(value);
#else
  std::memcpy(&bits, &value, sizeof value);
#endif
  report(
      view_then(view,
                [&](const record& r, int k) {
                  switch (k) {
                  case 0:
                    return put_bytes<2>(r, r.v.kind,
                                        static_cast<std::uint64_t>(violation_kind::non_finite) |
                                            static_cast<std::uint64_t>(operation::expect_finite) << 8);
                  case 1: return put(r, r.v.value, bits);
                  default: return put_index(r, k - 2, i0, rest...);
                  }
                }),
      view_field_count<View> + 2 + 1 + static_cast<int>(sizeof...(Rest)), i0.where, view.launch_number(), [&] {
        const std::int64_t idx[] = {i0.value, index_value(rest)...};
        host_fail_finite(facts_of(view), bits, idx, 1 + static_cast<int>(sizeof...(Rest)), i0.where);
      });
}

/// The cold side of the checks of view operations (construction, slice, select, permute,
/// reshape, expect_contiguous, expect_shape).
template <class View>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_view(
    View view, violation_kind kind, operation op, int dim, numbers n, dims expected, cuda::std::source_location where) {
  report(
      view_then(view, [&](const record& r, int k) {
        switch (k) {
        case 0:
          return put_bytes<2>(r, r.v.kind,
                              static_cast<std::uint64_t>(kind) | static_cast<std::uint64_t>(op) << 8);
        case 1: return put(r, r.v.dim, dim);
        case 2: return put(r, r.v.value, n.value);
        case 3: return put(r, r.v.value_end, n.value_end);
        case 4: return put(r, r.v.limit, n.limit);
        case 5: return put(r, r.v.figure, n.figure);
        case 6: return put(r, r.v.expected_rank, expected.n);
        default:
          return put_nth<violation::max_rank>(r, r.v.expected, k - 7,
                                              [&](auto i) { return static_cast<int>(i) < expected.n ? expected.v[i] : 0; });
        }
      }),
      view_field_count<View> + 7 + violation::max_rank, where, view.launch_number(),
      [&] { host_fail_view(facts_of(view), kind, op, dim, n, expected, where); });
}

/// Construction over a tracked allocation that the view does not fit in (host only).
template <class View>
CUGUARD_IMPL_NOINLINE void fail_allocation(View view, const allocation_span& found, std::int64_t first_byte,
                                           std::int64_t bytes, cuda::std::source_location where) {
  report_host(
      [&](record& r) {
        fill_view(r, view);
        violation& v = r.v;
        v.op = operation::make_view;
        if (!describe_allocation(found.token, v)) v.alloc_bytes = static_cast<std::int64_t>(found.bytes);
        v.kind = violation_kind::out_of_bounds;
        v.address = first_byte;
        v.bytes = bytes;
      },
      where);
}

#if CUGUARD_IMPL_CHECKS
/// The cold side of bounded() (a template, as every cold path is, so that a translation unit
/// that never instantiates a check never instantiates the device state).
template <class Int>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_bounded(
    Int value, Int bound, bool value_unsigned, bool bound_unsigned, cuda::std::source_location where) {
  report(
      [&](const record& r, int k) {
        switch (k) {
        case 0: return put(r, r.v.kind, violation_kind::out_of_bounds);
        case 1: return put(r, r.v.op, operation::bounded);
        case 2: return put(r, r.v.dim, -1);
        case 3: return put(r, r.v.device, -1);
        case 4: return put(r, r.v.value, value);
        case 5: return put(r, r.v.limit, bound);
        case 6: return put(r, r.v.value_unsigned, value_unsigned);
        default: return put(r, r.v.limit_unsigned, bound_unsigned);
        }
      },
      8, where);
}
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
