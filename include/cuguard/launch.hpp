// SPDX-License-Identifier: Apache-2.0
// cuguard::launch: numbers a kernel launch, checks its view arguments, stamps them with the
// launch number, starts the kernel through the backend, and with CUGUARD_LAUNCH_BLOCKING=1 checks.
#pragma once

#include <cuguard/check.hpp>
#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/detail/runtime/kernel_arguments.hpp>
#include <cuguard/detail/runtime/launch_steps.hpp>
#include <cuguard/detail/view/ptr_bounds.hpp>
#if CUGUARD_IMPL_EMULATION
#  include <cuguard/detail/runtime/fault_reports.hpp>
#  include <cuguard/detail/runtime/sanitizer_context.hpp>
#endif

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// Grid, block, dynamic shared memory and stream of a launch. Its constructor records the
/// caller's source position as the launch site: `cuguard::launch({grid, block}, kernel, ...)`.
struct launch_config {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
  const char* name = nullptr; ///< kernel name for reports; null: looked up from the kernel
  cuda::std::source_location where;
  /// The kernel's parameter names, comma-separated, where known (a <<<>>> launch the build helper
  /// translated): the labels of arguments that carry none; null: "argument 1 of <kernel>".
  const char* parameters = nullptr;

  launch_config(dim3 grid_, dim3 block_, std::size_t shared_bytes_ = 0, cudaStream_t stream_ = nullptr,
                const char* name_ = nullptr, cuda::std::source_location where_ = cuda::std::source_location::current())
      : grid(grid_), block(block_), shared_bytes(shared_bytes_), stream(stream_), name(name_), where(where_) {}
};


namespace detail {
/// What a launch does once its kernel started (or failed to): one function for every kernel, so
/// that each launch compiles to little more than its arguments. Throws cuda_error for a launch
/// that failed (`error`: the backend's own words, else the CUDA error), except, where
/// `refusal_throws` is false (a `<<<>>>` launch), one CUDA refused, which is left to
/// cudaGetLastError as on a GPU; with CUGUARD_LAUNCH_BLOCKING=1, calls check().
inline void end_launch(backend::status s, const text& error, const launch_entry& entry, cudaStream_t stream,
                       bool refusal_throws) {
  if (s != 0) {
    if (!error.empty()) throw cuda_error(0, (text("cuguard: ") << describe_launch(entry) << ' ' << error).c_str());
    if (!refusal_throws) return;
    throw_cuda(s, text("cannot start ") << describe_launch(entry));
  }
  // A stream being captured into a graph runs nothing yet (and synchronizing it would end the capture).
  if (launch_blocking() && !backend::capturing(stream)) check(stream);
}
} // namespace detail

namespace detail {
/// cuguard::launch of `kernel`, whose threads run `call(params...)` under emulation: a call that
/// names the kernel at compile time (a lambda, as a rewritten <<<>>> launch passes) lets the host
/// compiler inline the kernel into the loop that runs a block's threads. CUDA runs `kernel`.
/// `RefusalThrows`: false for a `<<<>>>` launch, whose refused configuration only sets the error
/// cudaGetLastError returns, as on a GPU (see end_launch).
template <bool RefusalThrows = true, class Call, class... Params, class... Args>
void launch_calling(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "cuguard::launch: the number of arguments differs from the "
                                                      "number of kernel parameters");
  static_assert(!(std::is_reference<Params>::value || ...), "cuguard::launch: kernel parameters must be values, "
                                                           "not references");
  detail::print_unread_report_at_exit(); // emulation: what no check() reads is printed at exit
#if CUGUARD_IMPL_EMULATION
  detail::emulated_runtime::install_sanitizer_hooks(); // a sanitizer's report names the CUDA thread
  detail::emulated_runtime::install_fault_handler(); // a fault in a kernel is a report, not a crash
#endif
  // A T* converted to a cuguard::ptr that no allocation holds is said with this launch's site.
  detail::kernel_arguments_for<std::decay_t<Params>...> params = [&] {
    const detail::conversion_site_scope site(config.where);
    return detail::kernel_arguments_for<std::decay_t<Params>...>(std::forward<Args>(args)...);
  }();
  const detail::launch_entry entry = detail::begin_launch(config.name, reinterpret_cast<const void*>(kernel), config.where,
                                                          config.grid, config.block, config.stream);
#if CUGUARD_IMPL_CHECKS // unchecked views carry nothing to check or stamp
  const int device = entry.device;
  int position = 0;
  params.each([&](auto& p) { detail::name_argument(p, entry, ++position, config.parameters); });
  params.each([&](auto& p) { detail::check_argument(p, entry, device); });
  params.each([&](auto& p) { detail::stamp_launch(p, entry.id); });
#endif
  detail::text error;
#if CUGUARD_IMPL_EMULATION
  const detail::backend::status s = detail::backend::launch(config.grid, config.block, config.shared_bytes, config.stream,
                                                            call, params, error, std::index_sequence_for<Params...>{});
#else
  (void)call;
  const detail::backend::status s = detail::backend::launch(config.grid, config.block, config.shared_bytes, config.stream,
                                                            kernel, params, error, std::index_sequence_for<Params...>{});
#endif
  detail::end_launch(s, error, entry, config.stream, RefusalThrows);
}
} // namespace detail

/// Launches a native __global__ kernel: `config` gives grid, block, dynamic shared memory and
/// stream, and its construction records the launch site. Checked builds number the launch for
/// reports, check every view argument (memory space, lifetime) before the kernel runs, and with
/// CUGUARD_LAUNCH_BLOCKING=1 in the environment call check() after it.
template <class... Params, class... Args>
void launch(const launch_config& config, void (*kernel)(Params...), Args&&... args) {
  detail::launch_calling(config, kernel, kernel, std::forward<Args>(args)...);
}

/// launch(kernel, grid, block, args...): the same with no dynamic shared memory, default stream.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), detail::grid_arg grid, dim3 block, Args&&... args) {
  launch(launch_config(grid.value, block, 0, nullptr, nullptr, grid.where), kernel, std::forward<Args>(args)...);
}

namespace detail {
/// The call of the kernel `Kernel`, named at compile time, with a thread's copy of the arguments.
template <auto Kernel>
struct kernel_call {
  static_assert(std::is_pointer<decltype(Kernel)>::value &&
                    std::is_function<std::remove_pointer_t<decltype(Kernel)>>::value,
                "cuguard::launch<kernel>: kernel must name a __global__ function");
  template <class... P>
  void operator()(P&... params) const {
    Kernel(params...);
  }
};
} // namespace detail

/// launch<kernel>(config, args...): launch(config, kernel, args...) with the kernel named at compile
/// time. Under emulation an optimized build then inlines the kernel, and what it calls, into the
/// function that runs it as one thread, and that into the loop over a block's threads where it is
/// small (no indirect call per thread); on a GPU it is the same launch.
template <auto Kernel, class... Args>
void launch(const launch_config& config, Args&&... args) {
  detail::launch_calling(config, Kernel, detail::kernel_call<Kernel>{}, std::forward<Args>(args)...);
}

/// launch<kernel>(grid, block, args...): launch(kernel, grid, block, args...), the kernel named at
/// compile time (see above).
template <auto Kernel, class... Args>
void launch(detail::grid_arg grid, dim3 block, Args&&... args) {
  launch<Kernel>(launch_config(grid.value, block, 0, nullptr, nullptr, grid.where), std::forward<Args>(args)...);
}

CUGUARD_IMPL_END_NAMESPACE
