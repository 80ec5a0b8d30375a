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

/// PyTorch's current CUDA stream (the null stream under emulation).
inline cudaStream_t current_stream() {
#if defined(__CUDACC__) && !CUGUARD_IMPL_EMULATION
  return c10::cuda::getCurrentCUDAStream().stream();
#else
  return nullptr;
#endif
}

/// cuguard::launch on config.stream, its reports as PyTorch errors: polls the report channel
/// first, and under emulation checks after the kernel (see launch).
template <class Call, class... Params, class... Args>
void launch_reporting(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
  as_torch_errors([&] {
    cuguard::poll(config.stream);
    launch_calling(config, kernel, call, std::forward<Args>(args)...);
    if (emulated) cuguard::check(config.stream);
  });
}

/// torch::launch's way of starting a kernel, for rewritten <<<>>> launches.
struct torch_launch {
  template <class Call, class... Params, class... Args>
  static void run(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
    launch_reporting(config, kernel, call, std::forward<Args>(args)...);
  }
};

/// What `kernel<<<grid, block, shared, stream>>>(args)` becomes in an extension's .cu file built
/// by cuguard.torch under emulation: torch::launch on the stream given, else the current one, its
/// threads calling `call` (see detail::chevron).
template <class Call, class... Params>
chevron_launch<torch_launch, Call, Params...> chevron(void (*kernel)(Params...), Call call,
                                                      const cuda::std::source_location& site, dim3 grid, dim3 block,
                                                      std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return {kernel, call,
          launch_config(grid, block, shared_bytes, stream != nullptr ? stream : current_stream(), nullptr, site)};
}

/// The same, for a kernel given by an expression: its threads call the pointer.
template <class... Params>
chevron_launch<torch_launch, void (*)(Params...), Params...> chevron(void (*kernel)(Params...),
                                                                     const cuda::std::source_location& site, dim3 grid,
                                                                     dim3 block, std::size_t shared_bytes = 0,
                                                                     cudaStream_t stream = nullptr) {
  return chevron(kernel, kernel, site, grid, block, shared_bytes, stream);
}

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
