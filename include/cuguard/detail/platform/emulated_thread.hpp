// SPDX-License-Identifier: Apache-2.0
// The emulated side of the device seam (detail/platform/device.hpp): what device code needs of
// the emulated thread it runs on, as plain data and a table of the emulation engine's functions.
// The engine (detail/emulation/grid_runner.hpp) points `running` at the thread it resumes and fills
// it; device code (views, checks, the cold side) reaches the engine only through it, so that a
// translation unit of views parses no scheduler, no race detector and no <ucontext.h>.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace platform {

/// A source position (file, function, line), or where only a pc is known (a raw access seen by
/// a sanitizer's hook: file null), the pc, looked up where a report names it.
struct source_site {
  const char* file;
  const char* function;
  unsigned line;
  const void* pc = nullptr;
};

/// One access to shared memory through a checked view, as a race report names it.
struct shared_access {
  const char* label;
  const char* type; ///< the element type's name, without const
  bool type_const;
  operation op;
  int rank;
  int width; ///< a vector access: its elements (0: one element)
  std::int64_t index[violation::max_rank];
  std::int64_t extent[violation::max_rank];
  std::int64_t stride[violation::max_rank];
  source_site site;
};

/// What an access to shared memory is known to be: a load, a store, or, through a reference (a
/// view's operator[]), either (the race detector tells a store by the bytes it changed).
enum class access_kind : unsigned char { either, load, store };

/// Fills the description of an access from what the caller passed as `context`.
using describe_access = void (*)(shared_access& out, const void* context);

/// What the engine does for device code, for the running thread's grid (`runner`).
struct emulated_engine {
  void (*exit_thread)(void* runner);                            ///< PTX exit: ends the running thread
  void (*trap)(void* runner);                                   ///< __trap(): stops the grid
  bool (*is_shared)(void* runner, const void* p);               ///< p is in the block's shared memory
  void (*note_shared)(void* runner, void* p, std::size_t bytes, ///< an access for the race detector
                      int count, access_kind kind, const source_site& site, describe_access describe,
                      const void* context);
  void (*thread_idx)(void* runner, unsigned (&idx)[3]); ///< threadIdx of the running thread
};

/// The emulated thread that runs on this OS thread: its position and its engine.
struct emulated_thread {
  unsigned block[3];     ///< blockIdx
  unsigned grid[3];      ///< gridDim
  unsigned block_dim[3]; ///< blockDim
  const emulated_engine* engine;
  void* runner;

  /// threadIdx, asked of the engine (only reports read it: the engine writes no copy of it here
  /// for each thread it runs).
  void thread_idx(unsigned (&idx)[3]) const { engine->thread_idx(runner, idx); }
};

/// The emulated thread running on this OS thread; null outside emulated kernels. Set with
/// set_running.
inline thread_local const emulated_thread* running = nullptr;

/// The memory spaces whose checked accesses leave the fast path where this OS thread runs now,
/// a bit per memory_space: outside kernels device memory (host code must not touch it); in an
/// emulated kernel host memory (device code must not) and shared memory (the race detector sees
/// each access). Set with `running`.
inline constexpr unsigned char host_watched_spaces = 1u << static_cast<unsigned>(memory_space::device);
inline constexpr unsigned char kernel_watched_spaces =
    (1u << static_cast<unsigned>(memory_space::host)) | (1u << static_cast<unsigned>(memory_space::shared));
inline thread_local unsigned char watched_spaces = host_watched_spaces;

/// Makes `t` the emulated thread running on this OS thread (null: none, host code runs).
inline void set_running(const emulated_thread* t) noexcept {
  running = t;
  watched_spaces = t != nullptr ? kernel_watched_spaces : host_watched_spaces;
}

} // namespace platform
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
