// SPDX-License-Identifier: Apache-2.0
// The `__shared__` variables of a program built by cuguard_emulate(... SANITIZE), by name: each
// declaration in a translated .cu file is followed by CUGUARD_IMPL_SHARED_VARIABLE(name)
// (python/cuguard/emulate.py), which lists it here once; find_shared_variable() tells which of
// them an address of the calling OS thread lies in (a `__shared__` variable is thread_local, and
// a block runs on one OS thread), so that a raw access to it can reach the race detector.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/violation.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <type_traits>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace engine {

/// One `__shared__` variable: how to find the calling OS thread's instance, its size, its
/// element type and dimensions (a scalar has one element), its name and declaration.
struct shared_variable {
  void* (*address)() noexcept;
  std::size_t bytes;
  std::size_t element_bytes;
  const char* name;
  const char* type;
  bool type_const;
  int rank;
  std::int64_t extent[violation::max_rank];
  const char* file;
  unsigned line;
};

/// Every `__shared__` variable declared so far (a function's is listed when it first runs).
struct shared_variable_list {
  std::mutex mutex;
  std::deque<shared_variable> all; // a deque: an entry stays where it is
  std::atomic<unsigned> count{0};
};
/// Some variable is listed (plain data, for a sanitizer's access hook, which reads it with no call).
inline bool shared_variables_listed = false;
/// How many are (the list's count, as plain data for the same reason).
inline unsigned shared_variables_count = 0;
inline shared_variable_list& shared_variables() {
  static shared_variable_list list;
  return list;
}

/// The dimensions of an array type, outermost first (none for a scalar).
template <class V>
constexpr void array_extents(std::int64_t* out, int& rank) {
  if constexpr (std::rank<V>::value > 0) {
    if (rank < violation::max_rank) out[rank] = static_cast<std::int64_t>(std::extent<V>::value);
    ++rank;
    array_extents<std::remove_extent_t<V>>(out, rank);
  }
}

/// Lists the `__shared__` variable of type V at `address()`; what CUGUARD_IMPL_SHARED_VARIABLE
/// runs once. Returns true.
template <class V>
bool declare_shared(void* (*address)() noexcept, const char* name, const char* file, unsigned line) {
  using element = std::remove_all_extents_t<V>;
  shared_variable v{address, sizeof(V), sizeof(element), name, type_name<std::remove_cv_t<element>>::value,
                    std::is_const<element>::value, 0, {}, file, line};
  array_extents<V>(v.extent, v.rank);
  if (v.rank > violation::max_rank) { // too many dimensions to name: its elements in a row
    v.rank = 1;
    v.extent[0] = static_cast<std::int64_t>(sizeof(V) / sizeof(element));
  } else if (v.rank == 0) {
    v.rank = 1;
    v.extent[0] = 1;
  }
  shared_variable_list& list = shared_variables();
  const std::lock_guard<std::mutex> lock(list.mutex);
  list.all.push_back(v);
  list.count.store(static_cast<unsigned>(list.all.size()), std::memory_order_release);
  __atomic_store_n(&shared_variables_count, static_cast<unsigned>(list.all.size()), __ATOMIC_RELEASE);
  __atomic_store_n(&shared_variables_listed, true, __ATOMIC_RELEASE);
  return true;
}

/// Where the calling OS thread's instances of the listed variables lie.
struct shared_variable_places {
  struct place {
    std::uintptr_t begin;
    std::size_t bytes;
    const shared_variable* variable;
  };
  unsigned seen = 0; ///< how many of the list it holds
  std::vector<place> places;
  const place* first = nullptr; ///< places.data() and size(), for a lookup that calls nothing
  std::size_t count = 0;
};

/// Adds the variables listed since `mine` last looked. Not waiting for the list: its holder's own
/// accesses come to the lookup too (a variable being listed is found at the next access).
inline void refresh_places(shared_variable_places& mine) {
  shared_variable_list& list = shared_variables();
  std::unique_lock<std::mutex> lock(list.mutex, std::defer_lock);
  if (!lock.try_lock()) return;
  for (std::size_t i = mine.seen; i < list.all.size(); ++i) {
    const shared_variable& v = list.all[i];
    mine.places.push_back({reinterpret_cast<std::uintptr_t>(v.address()), v.bytes, &v});
  }
  mine.seen = static_cast<unsigned>(list.all.size());
  mine.first = mine.places.data();
  mine.count = mine.places.size();
}

/// The `__shared__` variable of the calling OS thread that [a, a + n) lies in (null: none). Not
/// sanitized, and its loop calls nothing: a sanitized build's access hook runs it at every access,
/// and each access of a sanitized function would come back to the hook.
__attribute__((no_sanitize_address)) inline const shared_variable* find_shared_variable(std::uintptr_t a, std::size_t n,
                                                                                       std::uintptr_t* begin) {
  static thread_local shared_variable_places mine;
  if (mine.seen != __atomic_load_n(&shared_variables_count, __ATOMIC_ACQUIRE)) refresh_places(mine);
  for (const shared_variable_places::place *p = mine.first, *end = mine.first + mine.count; p != end; ++p)
    if (a >= p->begin && n <= p->bytes && a - p->begin <= p->bytes - n) {
      *begin = p->begin;
      return p->variable;
    }
  return nullptr;
}

/// `p`, as the optimizer cannot follow it (so that an access through it is an access through a
/// pointer, which AddressSanitizer instruments).
template <class T>
T* opaque_address(T* p) noexcept {
  asm("" : "+r"(p));
  return p;
}

} // namespace engine
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

/// What a translated .cu file declares a `__shared__` variable `name` as: its storage, which
/// CUGUARD_IMPL_SHARED_VARIABLE(name) then names `name` (a reference). GCC's AddressSanitizer
/// leaves a thread_local variable's accesses at constant offsets unchecked (`partial[1]`); through
/// the reference, every access reaches the access hooks, as one at a computed index does.
#define CUGUARD_IMPL_SHARED_NAME(name) cuguard_impl_shared_##name
/// Follows the declaration of the `__shared__` variable `name` in a translated .cu file: names
/// its storage `name`, and lists it for the race detector (where access hooks are built in;
/// detail/runtime/access_hooks.hpp).
#define CUGUARD_IMPL_SHARED_VARIABLE(name)                                                                  \
  thread_local auto& name = *::cuguard::detail::engine::opaque_address(__builtin_addressof(cuguard_impl_shared_##name)); \
  [[maybe_unused]] static const bool cuguard_impl_shared_listed_##name =                                   \
      ::cuguard::detail::engine::declare_shared<decltype(cuguard_impl_shared_##name)>(                     \
          []() noexcept -> void* {                                                                          \
            return const_cast<void*>(static_cast<const volatile void*>(__builtin_addressof(cuguard_impl_shared_##name))); \
          },                                                                                                \
          #name, __FILE__, __LINE__);
