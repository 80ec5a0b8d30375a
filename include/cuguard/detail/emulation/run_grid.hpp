// SPDX-License-Identifier: Apache-2.0
// The emulation engine's entry: a grid run on the calling OS thread, by that thread's runner.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/barriers.hpp>
#include <cuguard/detail/emulation/grid_barrier.hpp>
#include <cuguard/detail/emulation/grid_runner.hpp>
#include <cuguard/detail/emulation/race_detector.hpp>

#include <vector_types.h>

#include <cstddef>
#include <stdexcept>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// What the scheduler found in a grid besides violations: the first divergent barrier, the first
/// race on shared memory and the first problem with a warp-synchronous call (each with found
/// false: none).
struct grid_findings {
  barrier_problem divergent;
  shared_race race;
  warp_problem warp; ///< the first problem with a warp-synchronous call
  grid_sync_problem grid_sync; ///< a cooperative grid's block that finished while others waited at this_grid().sync()
};

/// The runner of the calling OS thread, current while the scope lasts (a kernel that launches a
/// kernel is refused: emulation has no dynamic parallelism).
struct runner_scope {
  grid_runner& runner;
  host_float_state float_state; ///< the OS thread's floating-point state, put back at the scope's end
  static grid_runner& of_this_thread() {
    static thread_local grid_runner r;
    return r;
  }
  runner_scope() : runner(of_this_thread()) {
    if (current_runner != nullptr)
      throw std::logic_error("cuguard emulation: a kernel cannot launch another kernel (no dynamic parallelism)");
    current_runner = &runner;
  }
  runner_scope(const runner_scope&) = delete;
  runner_scope& operator=(const runner_scope&) = delete;
  ~runner_scope() { current_runner = nullptr; }
};

/// Runs `work` as every thread of the grid; the calling thread's runner is reused. Returns
/// the grid's first divergent barrier and first race on shared memory.
inline grid_findings run_grid(dim3 grid, dim3 block, std::size_t dynamic_shared, const grid_runner::body& work) {
  runner_scope scope;
  scope.runner.run(grid, block, dynamic_shared, work);
  return grid_findings{scope.runner.problem(), scope.runner.race(), scope.runner.warp_found(), {}};
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
