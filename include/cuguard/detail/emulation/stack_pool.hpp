// SPDX-License-Identifier: Apache-2.0
// The stacks of a block's fibers: one mapping, a guard page below each stack, handed out as
// threads first wait and taken back as they finish.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/environment.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// Stacks for the fibers of one block at a time. A thread gets a stack when it first runs: the
/// stack of a thread that finished if there is one (the last one: its memory is in the cache),
/// so that a block whose threads run to the end without waiting runs every thread on one stack.
class stack_pool {
 public:
  stack_pool() = default;
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;
  ~stack_pool() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }

  /// Bytes of each stack; CUGUARD_EMULATION_STACK_KB in the environment overrides (at least 64).
  static std::size_t stack_size() {
    static const std::size_t size = [] {
      std::size_t kb = 256;
      using platform::environment, platform::setting;
      if (const char* s = environment(setting::emulation_stack_kb)) kb = std::strtoul(s, nullptr, 10);
      return (kb < 64 ? 64 : kb) * 1024;
    }();
    return size;
  }

  /// At least `stacks` stacks, none handed out (a new block); throws std::bad_alloc when the
  /// mapping fails.
  void reset(std::size_t stacks) {
    free_count_ = 0;
    started_ = 0;
    if (capacity_ >= stacks) return;
    free_.resize(stacks); // no more stacks are given back than handed out
    if (base_ != nullptr) ::munmap(base_, bytes_);
    size_ = stack_size();
    page_ = page_size();
    const std::size_t slot = size_ + page_;
    bytes_ = slot * stacks;
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      base_ = nullptr;
      capacity_ = 0;
      throw std::bad_alloc();
    }
    base_ = static_cast<char*>(p);
    for (std::size_t t = 0; t < stacks; ++t) ::mprotect(base_ + t * slot, page_, PROT_NONE);
    capacity_ = stacks;
  }

  /// A stack that no running fiber uses: the last one given back, else one not used yet.
  int take() { return free_count_ == 0 ? started_++ : free_[--free_count_]; }

  /// Stack `s` is free once the fiber on it has been switched away from for the last time.
  void give_back(int s) { free_[free_count_++] = s; }

  /// The lowest address of stack `s` (it grows down from bottom(s) + size()).
  char* bottom(int s) const { return base_ + static_cast<std::size_t>(s) * (size_ + page_) + page_; }
  /// Bytes of each stack (stack_size(), read once: no look at its guard for each stack handed out).
  std::size_t size() const noexcept { return size_; }

 private:
  static std::size_t page_size() {
    static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return page;
  }

  char* base_ = nullptr;
  std::size_t size_ = 0; ///< stack_size()
  std::size_t page_ = 0; ///< page_size(), the guard below each stack
  std::size_t bytes_ = 0;
  std::size_t capacity_ = 0;
  std::vector<int> free_;     ///< [0, free_count_): stacks of fibers that finished, the last one last
  std::size_t free_count_ = 0;
  int started_ = 0;       ///< stacks handed out since reset
};

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
