// SPDX-License-Identifier: Apache-2.0
// The cold side of every check: fills a violation record and hands it to the host or device policy.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/channel.hpp>
#include <cuguard/detail/host_hooks.hpp>
#include <cuguard/detail/index_args.hpp>
#include <cuguard/detail/lifetime_token.hpp>
#include <cuguard/detail/completion.hpp>
#include <cuguard/detail/pending.hpp>
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
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool in_device_code() noexcept {
#if CUGUARD_IMPL_DEVICE_PASS
  return true;
#elif CUGUARD_IMPL_EMULATION
  return emulation::in_kernel();
#else
  return false;
#endif
}

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

/// Label, type, shape, strides and memory space of `view`.
template <class View>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void fill_view(violation& v, pending& p, const View& view) {
  using element = typename View::element_type;
  const label_ref l = view.label_ref();
  p.label = address_of(l.text);
  p.label_on_host = l.on_host;
  p.type = address_of(type_name<std::remove_cv_t<element>>::value);
  p.type_const = std::is_const<element>::value;
  constexpr int rank = static_cast<int>(View::rank());
  v.rank = rank;
  for (int r = 0; r < rank; ++r) {
    v.extent[r] = static_cast<std::int64_t>(view.extent(static_cast<std::size_t>(r)));
    v.stride[r] = static_cast<std::int64_t>(view.stride(static_cast<std::size_t>(r)));
  }
  v.space = view.space();
  v.device = view.device();
  v.dim = -1;
}

#if CUGUARD_IMPL_DEVICE_CONTINUE
/// Storage that a recorded-and-continued access is redirected to.
template <class T>
CUGUARD_HOST_DEVICE T& scratch() noexcept {
  using bare = std::remove_cv_t<T>;
  struct alignas(alignof(bare) > alignof(double) ? alignof(bare) : alignof(double)) storage {
    unsigned char bytes[sizeof(bare)];
  };
  static storage s; // aligned like T: a redirected float4 access is a 16-byte access
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
template <class Fill>
[[noreturn]] void report_host(const Fill& fill, const cuda::std::source_location& where) {
  violation v{};
  pending p{};
  v.dim = -1;
  fill(v, p);
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
  printf("cuguard: violation at %s:%u in block (%u,%u,%u) thread (%u,%u,%u), and no report channel: launch "
         "kernels with cuguard::launch, and include <cuguard/cuguard.hpp> (or the runtime) in the kernel's "
         "translation unit\n",
         where.file_name(), static_cast<unsigned>(where.line()), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
         threadIdx.y, threadIdx.z);
  __trap();
}

/// Ends the calling thread of a kernel (the default device policy): PTX `exit`, which releases
/// a __syncthreads() that waits only for it and takes it out of every warp-synchronous
/// intrinsic's wait; under emulation its fiber ends the same way.
[[noreturn]] CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void stop_thread() {
#  if CUGUARD_IMPL_DEVICE_PASS
  asm volatile("exit;" ::: "memory");
  __builtin_unreachable();
#  else
  emulation::detail::runner().exit_thread();
#  endif
}

/// Device side of a violation: count it, let the first one write the record, then stop the
/// thread (default), continue (the caller redirects the access) or trap. `fill` writes the
/// numbers of the violation and what is pending; the host completes the record when it reads it
/// (check()). The record was cleared by the host, so only what applies is written. `launch` is
/// the launch number the view carries (0: none), recorded next to the device's last launch number.
template <class Fill>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void device_report(
    const Fill& fill, const cuda::std::source_location& where, std::uint64_t launch) {
  const device_state& state = current_device_state<Fill>();
  channel* ch = state.report;
  channel_counters* counters = state.counters;
  if (ch == nullptr || counters == nullptr) no_channel(where);
  atomicAdd(&counters->count, 1ull);
  if (atomicCAS(&counters->claim, 0u, 1u) == 0u) {
    *static_cast<volatile unsigned int*>(&ch->started) = 1u;
    violation& v = ch->record;
    pending& p = ch->to_finish;
    v.dim = -1;
    fill(v, p);
    p.file = address_of(where.file_name());
    p.function = address_of(where.function_name());
    v.line = static_cast<unsigned>(where.line());
    v.on_device = true;
    v.count_is_lower_bound = !CUGUARD_IMPL_DEVICE_CONTINUE;
#  if CUGUARD_IMPL_DEVICE_PASS
    // Read here, not before: the compiler would otherwise read the thread's position at the start
    // of the kernel and hold it in registers through every loop, for this cold path alone.
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v.block[0]));
    asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(v.block[1]));
    asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(v.block[2]));
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v.thread[0]));
    asm volatile("mov.u32 %0, %%tid.y;" : "=r"(v.thread[1]));
    asm volatile("mov.u32 %0, %%tid.z;" : "=r"(v.thread[2]));
#  else
    v.block[0] = blockIdx.x, v.block[1] = blockIdx.y, v.block[2] = blockIdx.z;
    v.thread[0] = threadIdx.x, v.thread[1] = threadIdx.y, v.thread[2] = threadIdx.z;
#  endif
    v.launch.id = state.launch_id != nullptr ? *state.launch_id : 0; // the device's last launch
    p.view_launch = launch; // check() decides between the two (resolve_launch)
    v.launch.grid[0] = gridDim.x, v.launch.grid[1] = gridDim.y, v.launch.grid[2] = gridDim.z;
    v.launch.block[0] = blockDim.x, v.launch.block[1] = blockDim.y, v.launch.block[2] = blockDim.z;
#  if CUGUARD_IMPL_DEVICE_TRAP
    // The host cannot read device memory once the kernel trapped: copy the texts now.
    finish_here(v, p);
#  endif
    __threadfence_system();
    *static_cast<volatile unsigned int*>(&ch->ready) = 1u;
    __threadfence_system();
    atomicExch(&counters->ready, 1u);
  }
#  if CUGUARD_IMPL_DEVICE_TRAP
  // Let the record be complete before any thread stops the grid.
  for (int spin = 0; spin < (1 << 20) && atomicAdd(&counters->ready, 0u) == 0u; ++spin) {
  }
  __threadfence_system();
  __trap();
#    if CUGUARD_IMPL_DEVICE_PASS
  __builtin_unreachable();
#    endif
#  elif !CUGUARD_IMPL_DEVICE_CONTINUE
  stop_thread();
#  endif
}

#endif

/// Hands a violation to the policy of the code it was found in. `fill(v, p)` writes the numbers
/// of the violation into the record `v` and what is still to complete into `p`; the source
/// position, thread and launch (`launch`: the number the view carries, if any) are added here.
/// In device code (and emulated kernels) the record goes to the report channel and the thread
/// stops, traps, or (CUGUARD_ON_DEVICE_VIOLATION_CONTINUE) the function returns; in host code it
/// throws or aborts.
template <class Fill>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void report(
    const Fill& fill, const cuda::std::source_location& where, std::uint64_t launch = 0) {
#if CUGUARD_IMPL_DEVICE_PASS
  device_report(fill, where, launch);
#else
#  if CUGUARD_IMPL_EMULATION
  if (emulation::in_kernel()) {
    device_report(fill, where, launch);
#    if CUGUARD_IMPL_DEVICE_CONTINUE
    return;
#    endif
  }
#  endif
  (void)launch;
  report_host(fill, where);
#endif
}

template <class... Rest>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void store_indices(std::int64_t* dst, std::int64_t i0,
                                                                Rest... rest) noexcept {
  dst[0] = i0;
  int r = 1;
  ((dst[r++] = index_value(rest)), ...);
}

template <class I>
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void store_origin(origin_info& dst, const I& i) noexcept {
  if constexpr (std::is_same<I, first_checked_index>::value || is_checked_index<I>::value) dst = origin_of(i);
}

/// The cold side of operator(), operator[], load and store: records the access; which check
/// failed is worked out when the record is completed (classify_access). `width` is 0 for a
/// scalar access and N for a vector access of N elements. Returns (the scratch element the
/// access is redirected to) only under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE.
template <class View, class First, class... Rest>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE typename View::element_type& fail_access(
    View view, operation op, int width, First i0, Rest... rest) {
  report(
      [&](violation& v, pending& p) {
        fill_view(v, p, view);
        v.op = op;
        v.width = width;
        store_indices(v.index, i0.value, rest...);
        p.access = true;
        p.wrong_space = !view.space_ok();
        p.stale = !alive(view.token());
        p.element_bytes = sizeof(typename View::element_type);
        p.data = address_of(view.data());
        p.token = view.token();
        store_origin(p.origins[0], i0);
        int r = 1;
        (store_origin(p.origins[r++], rest), ...);
      },
      i0.where, view.launch_number());
#if CUGUARD_IMPL_DEVICE_CONTINUE
  return scratch<typename View::element_type>();
#endif
}

/// The cold side of expect_finite.
template <class View, class... Rest>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_finite(View view, double value,
                                                                                  first_index i0, Rest... rest) {
  report(
      [&](violation& v, pending& p) {
        fill_view(v, p, view);
        v.kind = violation_kind::non_finite;
        v.op = operation::expect_finite;
        store_indices(v.index, i0.value, rest...);
        static_assert(sizeof value == sizeof v.value, "double is 64 bits");
#if CUGUARD_IMPL_DEVICE_PASS
        v.value = __double_as_longlong(value);
#else
        std::memcpy(&v.value, &value, sizeof value);
#endif
      },
      i0.where, view.launch_number());
}

/// The cold side of the checks of view operations (construction, slice, select, permute,
/// reshape, expect_contiguous, expect_shape).
template <class View>
CUGUARD_IMPL_FAIL_NORETURN CUGUARD_IMPL_COLD CUGUARD_HOST_DEVICE void fail_view(
    View view, violation_kind kind, operation op, int dim, numbers n, dims expected, cuda::std::source_location where) {
  report(
      [&](violation& v, pending& p) {
        fill_view(v, p, view);
        v.kind = kind;
        v.op = op;
        v.dim = dim;
        v.value = n.value;
        v.value_end = n.value_end;
        v.limit = n.limit;
        v.figure = n.figure;
        v.expected_rank = expected.n;
        for (int r = 0; r < expected.n; ++r) v.expected[r] = expected.v[r];
      },
      where, view.launch_number());
}

/// Construction over a tracked allocation that the view does not fit in (host only).
template <class View>
CUGUARD_IMPL_NOINLINE void fail_allocation(View view, const allocation_span& found, std::int64_t first_byte,
                                           std::int64_t bytes, cuda::std::source_location where) {
  report_host(
      [&](violation& v, pending& p) {
        fill_view(v, p, view);
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
      [&](violation& v, pending&) {
        v.kind = violation_kind::out_of_bounds;
        v.op = operation::bounded;
        v.device = -1;
        v.value = value;
        v.limit = bound;
        v.value_unsigned = value_unsigned;
        v.limit_unsigned = bound_unsigned;
      },
      where);
}
#endif

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
