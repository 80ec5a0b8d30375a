// SPDX-License-Identifier: Apache-2.0
// The shared memory of the running block under emulation: its dynamic shared memory, and the
// thread_local storage of the OS thread that runs it, where `__shared__` variables live.
#pragma once

#include <cuguard/config.hpp>

#include <link.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// The thread_local storage of the calling OS thread, as found by find(): the address and size
/// of each loaded module's block (a module loaded later is seen at the next find()).
class thread_storage {
 public:
  /// Finds the blocks of every module loaded now.
  void find() {
    blocks_.clear();
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t size, void* out) -> int {
          if (size < offsetof(dl_phdr_info, dlpi_tls_data) + sizeof info->dlpi_tls_data || info->dlpi_tls_data == nullptr)
            return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i)
            if (info->dlpi_phdr[i].p_type == PT_TLS)
              static_cast<std::vector<block>*>(out)->emplace_back(reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data),
                                                                  info->dlpi_phdr[i].p_memsz);
          return 0;
        },
        &blocks_);
  }

  /// True if [a, a + n) lies in one module's block.
  bool holds(std::uintptr_t a, std::size_t n) const noexcept {
    for (const auto& r : blocks_)
      if (a >= r.first && n <= r.second && a - r.first <= r.second - n) return true;
    return false;
  }

 private:
  using block = std::pair<std::uintptr_t, std::size_t>; // address, bytes
  std::vector<block> blocks_;
};

/// The shared memory of the block that runs on this OS thread: the grid's dynamic shared memory
/// (one buffer, each block's threads share it) and the `__shared__` variables (thread_local).
class block_shared {
 public:
  /// A new grid with `dynamic_bytes` of dynamic shared memory, zeroed.
  void begin_grid(std::size_t dynamic_bytes) {
    dynamic_.assign(dynamic_bytes, 0);
    ++grid_;
  }
  unsigned char* dynamic() noexcept { return dynamic_.data(); }
  std::size_t dynamic_bytes() const noexcept { return dynamic_.size(); }

  /// True if [a, a + n) lies in the dynamic shared memory or in the thread_local storage found so far.
  bool holds(std::uintptr_t a, std::size_t n) const noexcept {
    const auto d = reinterpret_cast<std::uintptr_t>(dynamic_.data());
    const std::size_t size = dynamic_.size();
    return (a >= d && n <= size && a - d <= size - n) || tls_.holds(a, n);
  }

  /// True if `p` is shared memory; looks for thread_local storage again once a grid, for a module
  /// loaded since (its storage is made at its first use).
  bool contains(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (holds(a, 1)) return true;
    if (tls_grid_ == grid_) return false;
    tls_.find();
    tls_grid_ = grid_;
    return tls_.holds(a, 1);
  }

 private:
  std::vector<unsigned char> dynamic_;
  thread_storage tls_;
  std::uint64_t grid_ = 0;     ///< grids begun
  std::uint64_t tls_grid_ = 0; ///< the grid tls_ was found in (0: never)
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
