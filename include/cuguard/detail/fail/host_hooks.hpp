// SPDX-License-Identifier: Apache-2.0
// The one interface through which a view made in host code reaches the host runtime: which
// tracked allocation it lies in, what is known of that allocation for a report, and that it was
// made (the runtime sets the device up, and raises a report nothing read).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/record/facts.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The allocation a host pointer lies in, as the host runtime knows it.
struct allocation_span {
  bool tracked = false;                       ///< false: no tracked allocation holds the pointer
  lifetime_token token{};                     ///< the allocation's token (tracked only)
  std::uintptr_t begin = 0;                   ///< its first byte (tracked only)
  std::size_t bytes = 0;                      ///< its size (tracked only)
  memory_space space = memory_space::unknown; ///< also for untracked memory, where the backend can tell
  int device = -1;
  const char* label = nullptr; ///< narrowed to a tensor: the member it was stored in, where host code named one
};

/// What views ask of the host runtime, and what the runtime's parts tell each other: one
/// interface, implemented by the lifetime registry (detail/runtime/lifetime_registry.hpp) and by
/// the device runtime (the CUDA backend's word on untracked memory, device copies of the generations). Each
/// implementation installs itself in front of the ones installed before it and passes on what
/// it cannot answer, so the order of installation does not matter; a program with neither has
/// none, and its views are untracked, of unknown memory space.
class host_hooks {
 public:
  /// The allocation holding `p`; where none does, the first that begins inside the `bytes`
  /// bytes from `p` (a view that starts before an allocation and runs into it).
  virtual allocation_span locate(const void* p, std::size_t bytes) const {
    return next_ ? next_->locate(p, bytes) : allocation_span{};
  }
  /// Fills the allocation fields of `v` (label, allocation and release sites, bytes) for the
  /// allocation of `t`: live, or released and not reused since. False if it is not known.
  virtual bool describe(const lifetime_token& t, violation& v) const { return next_ != nullptr && next_->describe(t, v); }
  /// Fills the allocation fields of `v` (label: what the memory is, bytes; no sites) for the
  /// untracked memory that holds `address` (a tensor's storage under emulation). False if none.
  virtual bool describe_memory(std::uintptr_t address, violation& v) const {
    return next_ != nullptr && next_->describe_memory(address, v);
  }
  /// Told that host code converts `p` to a cuguard::ptr inside `found` (what locate gave): where
  /// host code took `p` from a tensor it knows (cuguard.torch's checked pointers, `x.data_ptr<T>()`),
  /// `found` becomes that tensor's elements, its first to the last its sizes and strides reach.
  virtual void narrow(const void* p, allocation_span& found) const {
    if (next_ != nullptr) next_->narrow(p, found);
  }
  /// Fills the tensor fields of `v` (a pointer access whose bounds begin at `first`, element
  /// size `element`): the tensor they are, and the one the access's address lies in, where known.
  virtual void describe_tensor(std::uintptr_t first, std::size_t element, violation& v) const {
    if (next_ != nullptr) next_->describe_tensor(first, element, v);
  }
  /// Told of every release of a tracked allocation: `slot` has `generation` now, in the order of
  /// `stream` (a cudaStream_t; null: the default stream).
  virtual void released(std::uint32_t slot, std::uint32_t generation, void* stream) const {
    if (next_ != nullptr) next_->released(slot, generation, stream);
  }
  /// Told that host code made a view or converted a T* to a cuguard::ptr over memory located as
  /// `found`, for a kernel's argument perhaps, launched with <<<>>> as well as cuguard::launch:
  /// the runtime sets the device up for device code's reports.
  virtual void argument_made(const allocation_span& found) const {
    if (next_ != nullptr) next_->argument_made(found);
  }
  /// Asked where a launch's arguments are being made (a T* converted to a cuguard::ptr, a view
  /// of a tensor made by cuguard::torch): the runtime raises what device code recorded and
  /// nothing read, so that an earlier kernel's violation is raised before the next launch.
  virtual void unread_report() const {
    if (next_ != nullptr) next_->unread_report();
  }

 protected:
  host_hooks() = default;
  host_hooks(const host_hooks&) = delete;
  host_hooks& operator=(const host_hooks&) = delete;
  ~host_hooks() = default;

 private:
  friend void install_host_hooks(host_hooks& hooks) noexcept;
  const host_hooks* next_ = nullptr;
};

/// The installed implementations, the last installed first; null until one installs itself.
/// Read and written with atomic built-ins (<atomic> is a large header for one pointer).
inline const host_hooks* installed_host_hooks = nullptr;

inline const host_hooks* first_host_hooks() noexcept {
  return __atomic_load_n(&installed_host_hooks, __ATOMIC_ACQUIRE);
}

/// Puts `hooks` in front of the installed implementations (it must live as long as the program).
inline void install_host_hooks(host_hooks& hooks) noexcept {
  const host_hooks* old = first_host_hooks();
  do {
    hooks.next_ = old;
  } while (!__atomic_compare_exchange_n(&installed_host_hooks, &old, &hooks, true, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE));
}

/// Installs one `Hooks`, never destroyed (hooks are asked until the process ends, static
/// destructors included); true, for the inline variable that installs it at start-up.
template <class Hooks>
bool install_static_hooks() {
  static Hooks* const hooks = new Hooks;
  install_host_hooks(*hooks);
  return true;
}

inline allocation_span locate_allocation(const void* p, std::size_t bytes) {
  const host_hooks* h = first_host_hooks();
  return h != nullptr ? h->locate(p, bytes) : allocation_span{};
}

inline void narrow_allocation(const void* p, allocation_span& found) {
  const host_hooks* h = first_host_hooks();
  if (h != nullptr) h->narrow(p, found);
}

inline void describe_tensor(std::uintptr_t first, std::size_t element, violation& v) {
  const host_hooks* h = first_host_hooks();
  if (h != nullptr) h->describe_tensor(first, element, v);
}

inline bool describe_allocation(const lifetime_token& t, violation& v) {
  const host_hooks* h = first_host_hooks();
  return h != nullptr && h->describe(t, v);
}

inline bool describe_memory(std::uintptr_t address, violation& v) {
  const host_hooks* h = first_host_hooks();
  return h != nullptr && h->describe_memory(address, v);
}

inline void argument_made(const allocation_span& found) {
  const host_hooks* h = first_host_hooks();
  if (h != nullptr) h->argument_made(found);
}

inline void raise_unread_report() {
  const host_hooks* h = first_host_hooks();
  if (h != nullptr) h->unread_report();
}

inline void allocation_released(std::uint32_t slot, std::uint32_t generation, void* stream) {
  const host_hooks* h = first_host_hooks();
  if (h != nullptr) h->released(slot, generation, stream);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
