// SPDX-License-Identifier: Apache-2.0
// The headlines of what the emulation scheduler finds: divergent barriers, problems with
// warp-synchronous calls, races on shared memory.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/detail/report/text_parts.hpp>
#include <cuguard/violation.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The headline of a problem with a warp-synchronous call (operation::warp_sync), as
/// compute-sanitizer's synccheck finds them. `value` is the mask, `value_end` what went wrong
/// (0: the lane is not in its own mask; 1: a lane of the mask waits at another barrier), `label`
/// the function.
inline void append_warp_sync(text& out, const violation& v) {
  char mask[16];
  std::snprintf(mask, sizeof mask, "0x%08x", static_cast<unsigned>(v.value));
  const std::uint64_t linear =
      v.thread[0] + v.launch.block[0] * (std::uint64_t{v.thread[1]} + std::uint64_t{v.launch.block[1]} * v.thread[2]);
  const auto lane = static_cast<unsigned>(linear % 32);
  out << (v.value_end == 0 ? "invalid warp mask: thread " : "divergent warp: thread ");
  append_dim3(out, v.thread);
  out << " calls " << v.label << '(' << mask << ") at " << v.file << ':' << v.line;
  if (v.value_end == 0) {
    out << ", a mask without its own lane " << lane
        << " (every lane that calls a warp-synchronous function must be in its mask; the mask of the lanes that call "
           "is __ballot_sync's of the condition they call under, or __activemask())";
    return;
  }
  out << ", whose lane thread ";
  append_dim3(out, v.other_thread);
  append_site(out, " waits at another barrier, at ", v.other_site);
  out << " (a GPU hangs or leaves the result undefined: every lane a mask names that has not exited must call "
         "with that mask)";
}

/// "illegal address: thread (3,0,0) accessed 0x87654320 and faulted (SIGSEGV) in wild(int*), pc
/// 0x...": a fault in an emulated kernel's thread (`value`: 0 SIGSEGV, 1 SIGBUS, 2 SIGFPE: "integer
/// division by zero: thread (3,0,0) trapped (SIGFPE) in ..."; `limit`: the pc).
inline void append_illegal_address(text& out, const violation& v) {
  char numbers[64];
  if (v.value == 2) {
    out << "integer division by zero: thread ";
    append_dim3(out, v.thread);
    out << " trapped (SIGFPE)";
    append_function(out, v.function);
    std::snprintf(numbers, sizeof numbers, ", pc 0x%llx", static_cast<unsigned long long>(v.limit));
    out << numbers << " (or of the type's minimum by -1: on a GPU the quotient is an unspecified value and the kernel goes on)";
    return;
  }
  std::snprintf(numbers, sizeof numbers, " accessed 0x%llx and faulted (%s)", static_cast<unsigned long long>(v.address),
                v.value == 1 ? "SIGBUS" : "SIGSEGV");
  out << "illegal address: thread ";
  append_dim3(out, v.thread);
  out << numbers;
  append_function(out, v.function);
  std::snprintf(numbers, sizeof numbers, ", pc 0x%llx", static_cast<unsigned long long>(v.limit));
  out << numbers << " (a wild or stale pointer: on a GPU, an illegal memory access";
  // (the line is found from the pc where the module has line tables and binutils' addr2line is there)
  out << (v.line != 0 ? ")" : "; built with debug information, or cuguard_emulate(... SANITIZE), the report names the line)");
}

/// "float-to-integer conversion out of range: thread (3,0,0) converts nan ('float') to 'int'
/// implicitly: a GPU gives 0, this processor its own value (...)" (`value`: the double's bits,
/// `bytes`: the integer's width, `value_end`: the GPU's value of a 32- or 64-bit integer).
inline void append_conversion_overflow(text& out, const violation& v) {
  double value = 0;
  std::memcpy(&value, &v.value, sizeof value);
  char number[48];
  std::snprintf(number, sizeof number, "%g", value);
  out << "float-to-integer conversion out of range: thread ";
  append_dim3(out, v.thread);
  out << " converts " << number << " (" << v.type << ") to " << v.label << " implicitly";
  if (v.bytes >= 4) {
    if (v.dim != 0) std::snprintf(number, sizeof number, "%lld", static_cast<long long>(v.value_end));
    else std::snprintf(number, sizeof number, "%llu", static_cast<unsigned long long>(v.value_end));
    out << ": a GPU gives " << number << " (saturated), this processor its own value";
  } else {
    out << ": a GPU's value and this processor's differ";
  }
  out << " (emulation converts a cast, (int)x or __float2int_rz(x), as the GPU does, not an implicit conversion)";
}

/// "shift out of range: thread (3,0,0) shifts 1 ('int', 32 bits) by 32: ..." (`value`: the value
/// shifted, `value_end`: the count, `bytes`: the shifted type's width, `type`: its name).
inline void append_shift_overflow(text& out, const violation& v) {
  out << "shift out of range: thread ";
  append_dim3(out, v.thread);
  out << " shifts " << v.value << " (" << v.type << ", " << v.bytes * 8 << " bits) by " << v.value_end
      << ": a GPU clamps the count to " << v.bytes * 8 << " (<< gives 0, >> 0 or, of a negative value, -1), this "
      << "processor takes it modulo " << v.bytes * 8 << " (undefined in C++: the compiler may assume it never happens)";
}

/// A sanitized extension's kernel read bytes of a fresh tensor storage that nothing wrote:
/// "uninitialized read of 4 bytes through a raw pointer at (5) of 'keys' int32[64], which nothing
/// wrote since its storage was allocated (...)", then "  address 0x..., 20 bytes into the 256
/// bytes of a tensor's storage" (`limit`: the bytes of the read nothing wrote).
inline void append_unwritten_storage_read(text& out, const violation& v) {
  out << "uninitialized read of " << v.bytes << (v.bytes == 1 ? " byte" : " bytes") << " through a raw pointer at ("
      << v.index[0] << ") of ";
  append_view(out, v);
  if (v.limit != v.bytes) out << ", " << v.limit << " bytes of which";
  else out << ", which";
  out << " nothing wrote since its storage was allocated (no kernel, Torch op or host code wrote "
      << (v.limit == 1 ? "it" : "them") << " before the read: on a GPU the value is whatever the memory held)";
  out << "\n  address " << hex{static_cast<unsigned long long>(v.address)} << ", " << v.value_end << " bytes into the "
      << v.alloc_bytes << " bytes of " << v.alloc_label;
}

/// "uninitialized read: thread (16,0,0) reads 4 bytes at 0x..., 64 bytes into the 256 bytes of
/// device memory allocated by cudaMalloc in main, which nothing wrote (...)": initcheck's finding
/// (`value`: the offset, `limit`: the allocation's bytes, `value_end`: the bytes nothing wrote).
inline void append_uninitialized_read(text& out, const violation& v) {
  if (v.op == operation::raw_access) return append_unwritten_storage_read(out, v);
  char numbers[96];
  out << "uninitialized read: thread ";
  append_dim3(out, v.thread);
  std::snprintf(numbers, sizeof numbers, " reads %lld byte%s at 0x%llx, ", static_cast<long long>(v.bytes),
                v.bytes == 1 ? "" : "s", static_cast<unsigned long long>(v.address));
  out << numbers << v.value << " bytes into the " << v.limit << " bytes of device memory allocated by " << v.label;
  if (v.value_end != v.bytes) out << ", " << v.value_end << " of which nothing wrote";
  else out << ", which nothing wrote";
  out << " (no kernel store, copy or memset before the read: on a GPU the value is undefined)";
}

/// "NVTX pool violation: thread (63,0,0) writes 1 byte at 0x..., in the 4096-byte memory pool at
/// 0x... outside its regions (...)" or "NVTX permission violation: thread (0,0,0) writes 4 bytes
/// at 0x..., in the 4 bytes at 0x... that nvtxMemPermissionsAssign made read-only".
inline void append_annotation_violation(text& out, const violation& v) {
  static const char* const verbs[4] = {" reads ", " writes ", " reads ", " atomically updates "};
  static const char* const made[8] = {"neither readable nor writable", "read-only", "write-only", "readable and writable",
                                      "atomic-only", "readable and atomic", "writable and atomic", ""};
  const auto reason = static_cast<std::size_t>(v.value >= 0 && v.value < 4 ? v.value : 0);
  char numbers[160];
  out << (reason == 0 ? "NVTX pool violation: thread " : "NVTX permission violation: thread ");
  append_dim3(out, v.thread);
  std::snprintf(numbers, sizeof numbers, "%s%lld byte%s at 0x%llx, in the %lld %s at 0x%llx",
                reason == 0 && v.width == 1 ? verbs[1] : verbs[reason],
                static_cast<long long>(v.bytes), v.bytes == 1 ? "" : "s", static_cast<unsigned long long>(v.address),
                static_cast<long long>(v.limit), reason == 0 ? "bytes of a memory pool (nvtxMemHeapRegister)" : "bytes",
                static_cast<unsigned long long>(v.value_end));
  out << numbers;
  if (reason != 0) {
    out << " that nvtxMemPermissionsAssign made " << made[v.width & 7]
        << " (on a GPU under compute-sanitizer, an invalid access)";
    return;
  }
  out << " outside every region registered in it (nvtxMemRegionsRegister";
  if (v.expected[1] != 0) {
    std::snprintf(numbers, sizeof numbers, "; the region below it: %lld bytes at 0x%llx, which it is %lld bytes past",
                  static_cast<long long>(v.expected[1]), static_cast<unsigned long long>(v.expected[0]),
                  static_cast<long long>(v.address - v.expected[0] - v.expected[1]));
    out << numbers;
  } else {
    out << "; none below it: unregistered, or the pool reset";
  }
  out << ')';
}

/// "divergent barrier: thread (0,0,0) waits at __syncthreads() at k.cu:12, thread (16,0,0)
/// returned without reaching it" (or: "... waits at the one at k.cu:15")
inline void append_divergent_barrier(text& out, const violation& v) {
  if (v.op == operation::warp_sync) return append_warp_sync(out, v);
  out << "divergent barrier: thread ";
  append_dim3(out, v.thread);
  out << " waits at __syncthreads() at " << v.file << ':' << v.line << ", thread ";
  append_dim3(out, v.other_thread);
  if (v.other_site.line == 0) {
    out << " returned without reaching it";
  } else {
    append_site(out, " waits at the one at ", v.other_site);
  }
  out << " (a GPU lets the block pass or hangs: every thread of a block must reach the same __syncthreads())";
}

/// True if threads `a` and `b` of a block of `block` threads are in one warp (32 threads in
/// x-fastest order).
inline bool same_warp(const unsigned (&a)[3], const unsigned (&b)[3], const unsigned (&block)[3]) noexcept {
  const auto linear = [&](const unsigned (&t)[3]) {
    return t[0] + block[0] * (std::uint64_t{t[1]} + std::uint64_t{block[1]} * t[2]);
  };
  return block[0] != 0 && linear(a) / 32 == linear(b) / 32;
}

/// "shared memory race: thread (1,0,0) reads 'tile' int[64] at (2), which thread (2,0,0) wrote
/// at k.cu:19 in f, with no barrier between them (...)"
inline void append_shared_race(text& out, const violation& v) {
  static const char* const verbs[3][2] = {{" reads ", "wrote"}, {" writes ", "read"}, {" writes ", "wrote"}};
  const auto order = static_cast<std::size_t>(v.value >= 0 && v.value < 3 ? v.value : 0);
  out << "shared memory race: thread ";
  append_dim3(out, v.thread);
  out << verbs[order][0];
  append_view(out, v);
  out << " at (";
  append_list(out, v.index, v.rank);
  out << "), which thread ";
  append_dim3(out, v.other_thread);
  out << ' ' << verbs[order][1];
  append_site(out, " at ", v.other_site);
  out << ", with no barrier between them (on a GPU the result depends on which runs first: ";
  if (same_warp(v.thread, v.other_thread, v.launch.block))
    out << "they are lanes of one warp, and a __syncwarp() between the two orders them)";
  else
    out << "a __syncthreads() between the two orders them)";
}

/// A raw-pointer access outside the live memory it lies past, before or in (a sanitized
/// extension's kernel under emulation): "out-of-bounds read of 4 bytes through a raw pointer at
/// (700) of 'argument 4 of fps_kernel<float>' float[700]: element 700 >= extent 700", then
/// "  address 0x..., 0 bytes past the end of the 2800 bytes of a tensor's storage". use_after_free:
/// "use after free: read of ... of a tensor's storage that was freed".
inline void append_raw_access(text& out, const violation& v) {
  const bool freed = v.kind == violation_kind::use_after_free;
  out << (freed ? "use after free: " : "out-of-bounds ") << (v.value != 0 ? "write" : "read") << " of " << v.bytes
      << (v.bytes == 1 ? " byte" : " bytes") << " through a raw pointer at (" << v.index[0] << ") of ";
  append_view(out, v);
  const std::int64_t past = v.value_end; // bytes from the memory's start to the access's first byte
  if (freed) out << ", which was freed";
  else if (v.index[0] < 0) out << ": element " << v.index[0] << " < 0";
  else if (past < v.alloc_bytes) // (a wide access that begins inside: a float4 across the end)
    out << ": bytes [" << past << ", " << past + v.bytes << ") run past its " << v.alloc_bytes << " bytes";
  else out << ": element " << v.index[0] << " >= extent " << v.extent[0];
  out << "\n  address " << hex{static_cast<unsigned long long>(v.address)} << ", ";
  if (freed || (past >= 0 && past < v.alloc_bytes)) out << past << " bytes into ";
  else if (past < 0) out << -past << " bytes before the start of ";
  else out << past - v.alloc_bytes << " bytes past the end of ";
  out << "the " << v.alloc_bytes << " bytes of " << v.alloc_label;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
