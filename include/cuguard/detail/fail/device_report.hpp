// SPDX-License-Identifier: Apache-2.0
// The device policy of a violation found in device code (an nvcc kernel or an emulated kernel's
// thread): count it in the launch's report channel, let the first one write the record (the
// thread's position, the fields every device record has, then the violation's own), publish it,
// then stop the thread, trap, or go on (CUGUARD_ON_DEVICE_VIOLATION_CONTINUE). Where the code
// runs is asked of the device seam (detail/platform/device.hpp).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/device.hpp>
#include <cuguard/detail/record/channel.hpp>
#include <cuguard/detail/record/completion.hpp>
#include <cuguard/detail/record/device_state.hpp>
#include <cuguard/detail/record/fields.hpp>
#include <cuguard/detail/record/pending.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

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

/// The fields every device record has (with write_position's), in the order device_field writes
/// them: the source position, the device's last launch and the view's. What is the same in every
/// device record the reader sets (read_device_record: on_device, count_is_lower_bound).
struct device_fields {
  enum : int { file, function, line, device_launch, view_launch, count };
};
inline constexpr int device_field_count = device_fields::count;

/// Field k of the fields every device record has (but those of write_position).
CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE field_write device_field(const record& r, int k, const device_state& state,
                                                                      const cuda::std::source_location& where,
                                                                      std::uint64_t launch) {
  switch (k) {
  case device_fields::file: return put(r, r.p.file, address_of(where.file_name()));
  case device_fields::function: return put(r, r.p.function, address_of(where.function_name()));
  case device_fields::line: return put(r, r.v.line, where.line());
  case device_fields::device_launch: return put(r, r.v.launch.id, state.launch_id != nullptr ? *state.launch_id : 0);
  default: return put(r, r.p.view_launch, launch); // check() decides between the two (resolve_launch)
  }
}

/// Writes where the calling thread runs into `r`: blockIdx and threadIdx (violation::block and
/// thread), gridDim and blockDim (launch_record::grid and block), six 32-bit numbers in a row each.
/// In device code one asm statement for every check (the optimizer has none of it to work on:
/// cicc 6% and ptxas 8% fewer instructions than six steps of write_fields, bench/results/compile-time.md).
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
  const platform::position at = platform::thread_position();
  for (int a = 0; a < 3; ++a) {
    r.v.block[a] = at.block[a];
    r.v.thread[a] = at.thread[a];
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

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
