// SPDX-License-Identifier: Apache-2.0
// cuguard::torch's launches: on PyTorch's current stream, their reports as PyTorch errors, and
// what an extension's `<<<>>>` becomes under emulation. In CUDA translation units and under
// emulation only (where <cuguard/cuguard.hpp> gives the runtime).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/adapters/torch_errors.hpp>
#include <cuguard/detail/runtime/chevron.hpp>
#include <cuguard/launch.hpp>
#include <cuguard/runtime.hpp>
#if defined(__CUDACC__) && !CUGUARD_IMPL_EMULATION
#  include <c10/cuda/CUDAStream.h>
#endif

#include <cuda/std/source_location>

#include <cstddef>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// Under emulation, the current stream of the calling thread (the null stream until an
/// extension's c10::cuda::setCurrentCUDAStream sets another, detail/adapters/torch_cuda_host.hpp).
inline cudaStream_t& current_stream_cell() {
  static thread_local cudaStream_t stream = nullptr;
  return stream;
}

/// PyTorch's current CUDA stream (under emulation, current_stream_cell()).
inline cudaStream_t current_stream() {
#if defined(__CUDACC__) && !CUGUARD_IMPL_EMULATION
  return c10::cuda::getCurrentCUDAStream().stream();
#else
  return current_stream_cell();
#endif
}

/// cuguard::launch on config.stream, its reports as PyTorch errors: polls the report channel
/// first, and under emulation checks after the kernel (see launch). `RefusalThrows`: see
/// detail::launch_calling.
template <bool RefusalThrows = true, class Call, class... Params, class... Args>
void launch_reporting(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
  as_torch_errors([&] {
    cuguard::poll(config.stream);
    launch_calling<RefusalThrows>(config, kernel, call, std::forward<Args>(args)...);
    if (emulated) cuguard::check(config.stream);
  });
}

#if CUGUARD_IMPL_CHECKS
/// A report raised at a pointer conversion (a <<<>>> launch of a kernel with cuguard::ptr
/// parameters on a GPU: detail::report_hooks) as the PyTorch error Python shows.
inline const bool conversion_polls_as_torch_errors = [] {
  raise_at_arguments = [] { as_torch_errors([] { raise_recorded_report(); }); };
  return true;
}();
#endif

/// How an extension's rewritten <<<>>> launch starts its kernel under emulation: torch::launch on
/// the stream given, else the current one; a configuration CUDA refuses left to
/// cudaGetLastError, as on a GPU (C10_CUDA_KERNEL_LAUNCH_CHECK() then raises).
struct torch_launch {
  static cudaStream_t stream(cudaStream_t given) { return given != nullptr ? given : current_stream(); }
  template <class Call, class... Params, class... Args>
  static void run(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
    launch_reporting<false>(config, kernel, call, std::forward<Args>(args)...);
  }
};

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
