// SPDX-License-Identifier: Apache-2.0
// leakcheck under emulation, as compute-sanitizer's --leak-check full: the allocations of the
// emulated runtime API (cudaMalloc, cudaMallocManaged, cudaMallocHost, ...) alive at exit, or at
// cudaDeviceReset, listed with their size, memory, the call that made them and its caller.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/environment.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/error_exit.hpp>
#include <cuguard/detail/runtime/lifetime_registry.hpp>
#include <cuguard/detail/report/text.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>

extern "C" void __asan_set_error_report_callback(void (*)(const char*)) __attribute__((weak));

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// A yes-or-no setting of the sanitizing checks (leakcheck, API errors): "0" off, any other
/// value on; not set, on where AddressSanitizer runs (a cuguard_emulate(... SANITIZE) build).
inline bool sanitizing_setting(platform::setting s) {
  const char* value = platform::environment(s);
  if (value != nullptr && *value != '\0') return std::strcmp(value, "0") != 0;
  return &__asan_set_error_report_callback != nullptr;
}

/// CUGUARD_EMULATION_LEAKCHECK, read once.
inline bool leakcheck_on() {
  static const bool on = sanitizing_setting(platform::setting::emulation_leakcheck);
  return on;
}

inline const char* memory_name(memory_space s) {
  switch (s) {
    case memory_space::device: return "device memory";
    case memory_space::managed: return "managed memory";
    case memory_space::pinned: return "pinned host memory";
    default: return "memory";
  }
}

/// Lists the allocations alive now (`when`: "exit", "cudaDeviceReset in main"), each once, to
/// stderr; returns how many it listed.
inline std::size_t list_leaks(const char* when) {
  backend::emulated_memory& m = backend::memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  std::size_t count = 0, bytes = 0;
  for (auto& [begin, block] : m.blocks) {
    if (block.listed || block.call == nullptr) continue; // listed already; cuguard's own (device_buffer)
    block.listed = true;
    ++count;
    bytes += block.bytes;
    text line = "cuguard: leak: ";
    line << static_cast<std::uint64_t>(block.bytes) << " bytes of " << memory_name(block.space);
    if (block.label != nullptr) line << " '" << block.label << "'";
    line << " allocated by " << block.call;
    if (block.function != nullptr && *block.function != '\0') line << " in " << block.function;
    char address[32];
    std::snprintf(address, sizeof address, " (0x%llx)", static_cast<unsigned long long>(begin));
    line << address << ", alive at " << when;
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  if (count != 0) {
    errors_reported.fetch_add(count, std::memory_order_relaxed);
    std::fprintf(stderr, "cuguard: leak summary: %llu bytes in %llu allocation%s alive at %s\n",
                 static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(count), count == 1 ? "" : "s",
                 when);
  }
  return count;
}

/// From the first allocation on (leakcheck on): what is alive at exit is listed then.
inline void list_leaks_at_exit() {
  if (!leakcheck_on()) return;
  struct at_exit {
    ~at_exit() { (void)list_leaks("exit"); }
  };
  static at_exit lister;
  (void)lister;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
