// SPDX-License-Identifier: Apache-2.0
// What cuguard adds to a sanitizer's report under emulation (AddressSanitizer's, and
// UndefinedBehaviorSanitizer's fatal ones, as cuguard_emulate(... SANITIZE) builds them): the
// CUDA context of the emulated thread that erred (block, thread, launch, kernel) and, for an
// address, the allocation of the emulated runtime API it lies in or past. Installed through the
// sanitizers' callbacks where their runtime is linked; nothing otherwise.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/detail/runtime/error_exit.hpp>
#include <cuguard/detail/runtime/leak_check.hpp>
#include <cuguard/detail/report/text.hpp>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));
extern "C" void __asan_set_error_report_callback(void (*)(const char*)) __attribute__((weak));

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// "  address 0x... is 4 bytes past the end of the 1024 bytes of device memory allocated by
/// cudaMalloc in main (0x...)": the listed allocation at or below `address`.
inline void append_allocation_of(text& s, std::uintptr_t address) {
  const backend::emulated_memory& m = backend::memory(); // no lock: the process is dying
  auto it = m.blocks.upper_bound(address);
  if (it == m.blocks.begin()) return;
  --it;
  const std::uintptr_t begin = it->first;
  const backend::emulated_block& b = it->second;
  if (address - begin >= b.bytes + 4096) return; // far past it: not an overrun of this one
  char text_address[64];
  std::snprintf(text_address, sizeof text_address, "\n  address 0x%llx is ", static_cast<unsigned long long>(address));
  s << text_address;
  if (address - begin < b.bytes) s << static_cast<std::uint64_t>(address - begin) << " bytes into ";
  else s << static_cast<std::uint64_t>(address - begin - b.bytes) << " bytes past the end of ";
  s << "the " << static_cast<std::uint64_t>(b.bytes) << " bytes of " << memory_name(b.space) << " allocated by "
    << (b.call != nullptr ? b.call : "cuguard (a device_buffer)");
  if (b.function != nullptr && *b.function != '\0') s << " in " << b.function;
}

/// Prints the CUDA context of the emulated thread that runs (nothing outside kernels) and the
/// allocation of `address` (0: none known); `which` says which report it belongs to.
inline void print_cuda_context(std::uintptr_t address, const char* which) {
  const platform::emulated_thread* t = platform::running;
  if (t == nullptr) return;
  unsigned thread[3];
  t->thread_idx(thread);
  text s = "cuguard: ";
  s << which << " is in an emulated kernel: block (" << t->block[0] << ',' << t->block[1] << ',' << t->block[2]
    << ") thread (" << thread[0] << ',' << thread[1] << ',' << thread[2] << ')';
  if (const launch_entry* e = known_launch(runtime().launches))
    s << " of " << describe_launch(*e) << " in " << e->where.function_name();
  if (address != 0) append_allocation_of(s, address);
  std::fprintf(stderr, "%s\n", s.c_str());
}

inline bool& address_report_seen() {
  static bool seen = false;
  return seen;
}
/// AddressSanitizer's report callback (after its report): the address the report is about, then
/// the context.
inline void on_address_report(const char* report) {
  address_report_seen() = true;
  count_error();
  const char* at = report != nullptr ? std::strstr(report, "address 0x") : nullptr;
  print_cuda_context(at != nullptr ? static_cast<std::uintptr_t>(std::strtoull(at + 8, nullptr, 16)) : 0,
                     "the report above");
}
/// A sanitizer's death callback: the context, where no report callback gave it.
inline void on_sanitizer_death() {
  if (!address_report_seen()) print_cuda_context(0, "the report above");
}

/// Installs the callbacks (once) where a sanitizer's runtime is linked.
inline void install_sanitizer_hooks() {
  static const bool installed = [] {
    if (&__asan_set_error_report_callback != nullptr) __asan_set_error_report_callback(&on_address_report);
    if (&__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(&on_sanitizer_death);
    return true;
  }();
  (void)installed;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

/// AddressSanitizer's defaults: go on after a report where the build allows it
/// (-fsanitize-recover=address, as cuguard_emulate(... SANITIZE) builds), as compute-sanitizer
/// goes on after an error, and let an allocation too large fail (a weak definition: a program's
/// own, and ASAN_OPTIONS, come first).
extern "C" __attribute__((weak)) const char* __asan_default_options() {
  return "halt_on_error=0:allocator_may_return_null=1"; // a cudaMalloc too large fails as on a GPU
}

/// UndefinedBehaviorSanitizer's hook, called as each of its reports begins: the CUDA context
/// first (a weak definition: UBSan's own is empty, and a program's own comes first).
extern "C" __attribute__((weak)) void __ubsan_on_report() {
  ::cuguard::detail::emulated_runtime::count_error();
  ::cuguard::detail::emulated_runtime::print_cuda_context(0, "the report below");
}

/// UndefinedBehaviorSanitizer's handler of its alignment and null checks, in front of UBSan's own:
/// a reference bound, or a member named, through a misaligned pointer is no access, and a GPU
/// does not fault on it (CUB binds its 32-byte-aligned temporary storage to 16-byte words), so
/// only loads and stores, and null pointers, reach UBSan's report, as compute-sanitizer reports
/// misaligned accesses alone. (A weak definition: a program's own comes first.)
extern "C" __attribute__((weak)) void __ubsan_handle_type_mismatch_v1(void* data, void* pointer) {
  struct mismatch {
    const char* file;
    unsigned line, column;
    const void* type;
    unsigned char log_alignment;
    unsigned char kind; // 0 load, 1 store, 2 reference binding, 3 member access, 4 member call, 5 constructor call
  };
  const unsigned char kind = static_cast<const mismatch*>(data)->kind;
  if (pointer != nullptr && kind >= 2 && kind <= 5) return;
  using handler = void (*)(void*, void*);
  static const handler ubsan = reinterpret_cast<handler>(::dlsym(RTLD_NEXT, "__ubsan_handle_type_mismatch_v1"));
  if (ubsan != nullptr) ubsan(data, pointer);
}
