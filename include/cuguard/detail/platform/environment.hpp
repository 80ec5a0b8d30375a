// SPDX-License-Identifier: Apache-2.0
// Every environment variable cuguard reads, in one place:
//
//   CUGUARD_LAUNCH_BLOCKING=1      cuguard::launch calls check() after every launch, so that a
//                                  report comes at the launch (runtime; read at every launch, so
//                                  that a program may set it between launches)
//   CUGUARD_EMULATION_THREADS=N    the OS threads a grid's blocks run on under emulation, 1 to
//                                  1024 (read at the first launch)
//   CUGUARD_EMULATION_SCHEDULE=S   the order of a block's threads between barriers under
//                                  emulation: forward, reverse or random:<seed> (read at the
//                                  first launch)
//   CUGUARD_EMULATION_STACK_KB=N   the stack of each emulated thread, in KiB, at least 64
//                                  (default 256; read at the first launch)
//   CUGUARD_EMULATION_LEAKCHECK=B  1: the emulated runtime API lists the allocations alive at
//                                  exit and at cudaDeviceReset; 0: it does not (default: 1 under
//                                  AddressSanitizer, as cuguard_emulate(... SANITIZE) builds,
//                                  else 0; read at the first allocation)
//   CUGUARD_EMULATION_API_ERRORS=B 1: a call of the emulated runtime API that returns an error
//                                  prints it with its caller (default as LEAKCHECK's)
//   CUGUARD_EMULATION_INITCHECK=B  1: a kernel's read of device memory (cudaMalloc) that no
//                                  kernel store, copy or memset wrote is reported, and an
//                                  allocation nothing used is printed as it is freed or at exit;
//                                  0: not (default as LEAKCHECK's; only where raw accesses are
//                                  seen: cuguard_emulate(... SANITIZE))
//   CUGUARD_EMULATION_ERROR_EXITCODE=N  the exit status (0 to 255) of an emulated program that
//                                  printed a report (an error of the list above, a violation, a
//                                  race, a sanitizer's report), as compute-sanitizer's
//                                  --error-exitcode; 0: the program's own (default: 1 in a
//                                  cuguard_emulate(... SANITIZE) build, else 0; read at exit)
//   CUGUARD_NVTX_POOLS=1           PyTorch's CUDA caching allocator's segments are NVTX memory
//                                  pools and its blocks regions of them, for compute-sanitizer
//                                  (cuguard::torch on a CUDA build of Torch 2.2 or later; read at
//                                  the first segment)
//   RANK, WORLD_SIZE               torch.distributed's launchers' (torchrun): a report that
//                                  cuguard::torch raises names the rank ("in rank 1 of 2")
//
// Compile-time settings are macros, read by config.hpp alone.
#pragma once

#include <cuguard/config.hpp>

#include <cstdlib>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace platform {

/// The environment variables of the table above.
enum class setting { launch_blocking, emulation_threads, emulation_schedule, emulation_stack_kb, emulation_leakcheck,
                     emulation_api_errors, emulation_initcheck, emulation_error_exitcode, nvtx_pools, job_rank,
                     job_world_size };

/// The name of the environment variable of `s` (for messages about its value too).
constexpr const char* name_of(setting s) noexcept {
  switch (s) {
    case setting::launch_blocking: return "CUGUARD_LAUNCH_BLOCKING";
    case setting::emulation_threads: return "CUGUARD_EMULATION_THREADS";
    case setting::emulation_schedule: return "CUGUARD_EMULATION_SCHEDULE";
    case setting::emulation_stack_kb: return "CUGUARD_EMULATION_STACK_KB";
    case setting::emulation_leakcheck: return "CUGUARD_EMULATION_LEAKCHECK";
    case setting::emulation_api_errors: return "CUGUARD_EMULATION_API_ERRORS";
    case setting::emulation_initcheck: return "CUGUARD_EMULATION_INITCHECK";
    case setting::emulation_error_exitcode: return "CUGUARD_EMULATION_ERROR_EXITCODE";
    case setting::nvtx_pools: return "CUGUARD_NVTX_POOLS";
    case setting::job_rank: return "RANK";
    case setting::job_world_size: return "WORLD_SIZE";
  }
  return "";
}

/// The value of `s` in the environment now, or null where it is not set.
inline const char* environment(setting s) noexcept { return std::getenv(name_of(s)); }

} // namespace platform
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
