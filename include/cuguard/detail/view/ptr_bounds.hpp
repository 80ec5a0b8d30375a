// SPDX-License-Identifier: Apache-2.0
// Where a cuguard::ptr's bounds come from (checks on): the tracked allocation that holds a T*
// converted in host code, none (every access passes) for memory cuguard does not know, and the
// elements of another type that a ptr_cast fits into the same bytes; the warning for unknown
// memory, once per place in the source.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/platform/device.hpp>
#include <cuguard/detail/view/view_parts.hpp>
#include <cuguard/type_name.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#if !CUGUARD_IMPL_DEVICE_PASS
#  include <cuguard/detail/platform/host_mutex.hpp>
#  include <cstdio>
#endif

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// What a checked pointer is: a rank-1 view of the elements it may reach (data: the first,
/// stride 1, with the label, lifetime token, memory space, device and launch number of a view)
/// and its position, in elements from that first one. The view is what cuguard::launch names,
/// checks and stamps (argument_view), and what a failed access reports. `function`: the pretty
/// name of the function that holds it (a translated function names its pointers as it starts,
/// and the casts it makes, detail/view/pointer_translation.hpp), which a failed access reports
/// in place of the short name its line's location gives; null elsewhere.
template <class T>
struct pointer_bounds {
  checked_view<T, 1> view;
  std::int64_t offset = 0;
  const char* function = nullptr;
};

/// The extent of a pointer into memory cuguard does not know: every offset from the lowest
/// address on passes.
inline constexpr std::int64_t unknown_extent = max_of<std::int64_t>;

/// The bounds of the element of `size` bytes at `address` inside the bytes [begin, end): the
/// first element at or after `begin` that lies a whole number of elements from `address`, how
/// many fit before `end`, and the offset of `address` from it. Addresses as integers: `address`
/// may lie anywhere.
template <class T>
CUGUARD_HOST_DEVICE pointer_bounds<T> place_in(std::uintptr_t address, std::uintptr_t begin, std::uintptr_t end,
                                               const view_meta& m) noexcept {
  constexpr std::int64_t size = static_cast<std::int64_t>(sizeof(T));
  std::int64_t gap = static_cast<std::int64_t>(address - begin) % size;
  if (gap < 0) gap += size;
  const std::uintptr_t first = begin + static_cast<std::uintptr_t>(gap);
  const std::int64_t extent = end > first ? static_cast<std::int64_t>((end - first) / sizeof(T)) : 0;
  const std::int64_t offset = static_cast<std::int64_t>(address - first) / size;
  return {view_internals::assemble(reinterpret_cast<T*>(first), extent, m), offset};
}

/// The bounds of a pointer into memory cuguard does not know: its first element as low as the
/// address allows (so that a negative offset passes too), the largest extent.
template <class T>
CUGUARD_HOST_DEVICE pointer_bounds<T> unknown_bounds(std::uintptr_t address, const view_meta& m) noexcept {
  constexpr std::uintptr_t most = (std::uintptr_t{1} << 62) / sizeof(T);
  const std::uintptr_t below = address / sizeof(T) < most ? address / sizeof(T) : most;
  return {view_internals::assemble(reinterpret_cast<T*>(address - below * sizeof(T)), unknown_extent, m),
          static_cast<std::int64_t>(below)};
}

/// The place a launch converts its arguments at (cuguard::launch, a translated <<<>>>), which a
/// pointer converted there names in its warning rather than the library's line; null elsewhere.
#if !CUGUARD_IMPL_DEVICE_PASS
inline thread_local const cuda::std::source_location* launch_conversion_site = nullptr;

/// Says once per place in the source that a pointer made there points into memory cuguard does
/// not know, and is not checked.
inline void warn_unknown_pointer(const void* p, const char* type, const cuda::std::source_location& where) {
  struct place {
    const char* file;
    unsigned line;
  };
  static place said[64];
  static int count = 0;
  static host_mutex mutex;
  host_lock lock(mutex);
  for (int i = 0; i < count; ++i)
    if (said[i].line == where.line() && said[i].file == where.file_name()) return;
  if (count < 64) said[count++] = {where.file_name(), static_cast<unsigned>(where.line())};
  std::fprintf(stderr,
               "cuguard: warning: a cuguard::ptr<%s> made at %s:%u points to %p, which no tracked allocation or "
               "tensor holds: its accesses are not checked (cuguard::torch::ptr<T>(tensor, \"name\") or "
               "cuguard::track gives it bounds)\n",
               type, where.file_name(), static_cast<unsigned>(where.line()), p);
}
#endif

/// The bounds of `p`, converted from a T*: in host code those of the tensor host code took it
/// from (host_hooks::narrow), else of the tracked allocation that holds it (with its lifetime
/// token and memory space), else none (said once per place); in
/// device code none. A null pointer has no element. In host code, a report device code recorded
/// and nothing read is thrown first (host_hooks::unread_report).
template <class T>
CUGUARD_HOST_DEVICE pointer_bounds<T> bounds_of(T* p, const cuda::std::source_location& where) {
  view_meta m;
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  if (p == nullptr) return {view_internals::assemble(p, std::int64_t{0}, m), 0};
#if !CUGUARD_IMPL_DEVICE_PASS
  if (!platform::in_kernel()) {
    raise_unread_report(); // an earlier kernel's, before this launch
    allocation_span found = locate_allocation(p, sizeof(T));
    argument_made(found);
    narrow_allocation(p, found); // (the tensor host code took p from, where one is known)
    m.space = found.space;
    m.device = found.device;
    m.label = found.label;
    if (found.tracked || found.bytes != 0) {
      m.token = found.token;
      return place_in<T>(address, found.begin, found.begin + found.bytes, m);
    }
    warn_unknown_pointer(p, type_name<std::remove_cv_t<T>>::value,
                         launch_conversion_site != nullptr ? *launch_conversion_site : where);
  }
#else
  (void)where;
#endif
  return unknown_bounds<T>(address, m);
}

/// The bounds of a pointer to U at the address of `b`: the U elements that lie whole in b's
/// bytes (unknown bounds stay as good as unknown: all the U up to the last address), with b's label, token, memory space and launch number;
/// none where the address is not aligned for U (the first element keeps the address's
/// misalignment, from which a failed access's record is classified as misaligned). With
/// `whole_words`, where the address is not b's first element, the bytes are those of the aligned
/// U that hold any of b's (a word's CAS loop over the 8- or 16-bit element in it; a cast of the
/// first element, `(const uint32_t*)bytes`, keeps the bounds of the whole U in them).
template <class U, class T>
CUGUARD_HOST_DEVICE pointer_bounds<U> recast(const pointer_bounds<T>& b, bool whole_words = false) noexcept {
  const view_meta m = view_internals::meta(b.view);
  const auto first = reinterpret_cast<std::uintptr_t>(b.view.data());
  const std::uintptr_t address = first + static_cast<std::uintptr_t>(b.offset) * sizeof(T);
  // The end, held at the last address where the bounds reach past it (unknown bounds: every U
  // from their first element on).
  const auto extent = static_cast<std::uintptr_t>(b.view.extent(0));
  const std::uintptr_t room = (~std::uintptr_t{0} - first) / sizeof(T);
  std::uintptr_t begin = first, end = extent < room ? first + extent * sizeof(T) : ~std::uintptr_t{0};
  if (whole_words && address != first && end < ~std::uintptr_t{0} - sizeof(U)) {
    begin -= begin % sizeof(U);
    end += (sizeof(U) - end % sizeof(U)) % sizeof(U);
  }
  pointer_bounds<U> cast = place_in<U>(address, begin, end, m);
  cast.function = b.function;
  if (address % alignof(U) != 0) cast.view = view_internals::assemble(cast.view.data(), std::int64_t{0}, m);
  return cast;
}

/// Where a pointer conversion in a launch names the launch's site (see launch_conversion_site).
class conversion_site_scope {
 public:
  explicit conversion_site_scope(const cuda::std::source_location& where) noexcept {
#if !CUGUARD_IMPL_DEVICE_PASS
    launch_conversion_site = &where;
#else
    (void)where;
#endif
  }
  conversion_site_scope(const conversion_site_scope&) = delete;
  conversion_site_scope& operator=(const conversion_site_scope&) = delete;
  ~conversion_site_scope() {
#if !CUGUARD_IMPL_DEVICE_PASS
    launch_conversion_site = nullptr;
#endif
  }
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
