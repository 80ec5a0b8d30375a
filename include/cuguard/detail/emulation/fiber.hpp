// SPDX-License-Identifier: Apache-2.0
// One emulated CUDA thread: the built-in variables it sees, and the fiber it runs as.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/fiber_context.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>

#include <vector_types.h>

#include <cstddef>
#include <stdexcept>

// The CUDA built-in variables, as CUDA names them: variables (not macros), so that a parameter
// named threadIdx shadows them as it would under nvcc and a debugger can print them. The runner
// sets them before it resumes a thread; they are thread_local because a block's threads run on
// one OS thread, and every OS thread may run a grid of its own. Kernel code must not assign them.
inline thread_local uint3 threadIdx{};
inline thread_local uint3 blockIdx{};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// The CUDA built-in variables of one thread.
struct thread_context {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;

  /// The same, as device code reads them through the device seam, with the engine that runs it.
  platform::emulated_thread as_seen_by_device(const platform::emulated_engine* engine,
                                                                 void* runner) const noexcept {
    return {{block_idx.x, block_idx.y, block_idx.z}, {grid_dim.x, grid_dim.y, grid_dim.z},
            {block_dim.x, block_dim.y, block_dim.z}, engine, runner};
  }
};

/// `idx` becomes the next thread's threadIdx in a block of `dim` (x fastest): counted on, no division.
inline void next_thread_idx(uint3& idx, const dim3& dim) noexcept {
  if (++idx.x == dim.x) {
    idx.x = 0;
    if (++idx.y == dim.y) {
      idx.y = 0;
      ++idx.z;
    }
  }
}

/// Throws std::invalid_argument for a launch configuration that a GPU refuses.
inline void check_launch_configuration(dim3 grid, dim3 block) {
  const std::size_t threads = std::size_t{block.x} * block.y * block.z;
  if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0)
    throw std::invalid_argument("cuguard emulation: invalid launch configuration (grid or block has no thread, or "
                                "a block has more than 1024 threads)");
}

/// Where a thread waits at __syncthreads() (its caller's file, function and line).
using barrier_site = platform::source_site;

/// Where a thread of the running block is.
enum class fiber_state { ready, at_barrier, at_warp_barrier, done };

/// A thread of the running block, as the runner keeps it.
struct fiber {
  fiber_context context; ///< its registers while it is not running
  fiber_state st;
  int stack;               ///< the stack it runs on (-1: it has not started)
  bool on_scheduler_stack; ///< it runs as a call from the scheduler, which has not left its stack
  uint3 thread_idx;        ///< its threadIdx (the block's other ids are the runner's)
  void* fake_stack;  ///< AddressSanitizer's fake stack of the fiber while it is switched away from
  barrier_site site; ///< the barrier it waits at (at_barrier: __syncthreads(); at_warp_barrier: `call`)
  unsigned mask;     ///< the lanes its warp barrier waits for (at_warp_barrier)
  const char* call;  ///< the warp-synchronous function it waits in ("__syncwarp", "__shfl_sync", ...)
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
