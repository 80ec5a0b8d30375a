// SPDX-License-Identifier: Apache-2.0
// What cuguard.torch.load compiles into an extension built by nvcc with checks on, in one
// translation unit of its own: cuguard::torch, whose loading follows the CUDA caching allocator's
// trace (a T* converted to a cuguard::ptr is bounded by its block; NVTX's pools with
// CUGUARD_NVTX_POOLS=1) also where no source of the extension includes it, and the function
// Python takes a pending report with after each call and at exit (torch_reports.hpp).
#pragma once

#include <cuguard/detail/adapters/torch_reports.hpp>
#include <cuguard/torch.hpp> // IWYU pragma: export (its loading follows the allocator's trace)

#include <cstddef>

/// Python, after a call of the extension's functions (`wait` 0: a report already recorded;
/// CUGUARD_LAUNCH_BLOCKING=1, and at exit, 1: after the device's work is done): see take_report.
extern "C" __attribute__((visibility("default"))) int cuguard_torch_report(char* text, std::size_t size, int wait) {
  return ::cuguard::detail::torch_adapter::take_report(text, size, wait != 0);
}
