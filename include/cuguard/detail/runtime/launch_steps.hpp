// SPDX-License-Identifier: Apache-2.0
// What cuguard::launch does before its kernel starts: the grid argument that records the launch
// site, the numbering of the launch, and the checks, names and launch numbers of its view
// arguments.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/detail/runtime/kernel_arguments.hpp>
#include <cuguard/detail/view/view_parts.hpp>
#include <cuguard/type_name.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The grid argument of launch(kernel, grid, block, ...): records the launch site.
struct grid_arg {
  dim3 value;
  cuda::std::source_location where;
  grid_arg(dim3 v, cuda::std::source_location w = cuda::std::source_location::current()) : value(v), where(w) {}
  template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  grid_arg(I x, cuda::std::source_location w = cuda::std::source_location::current())
      : value(static_cast<unsigned>(x)), where(w) {}
};

/// Numbers the launch of `kernel` (named `name`, null: looked up), remembers it, and makes the
/// device see its number in stream order.
inline launch_entry begin_launch(const char* name, const void* kernel, const cuda::std::source_location& where, dim3 grid,
                                 dim3 block, cudaStream_t stream) {
  runtime_state& rt = runtime();
  launch_entry e;
  e.kernel = name != nullptr ? text(name) : kernel_name(kernel);
  e.where = where;
  e.grid = grid;
  e.block = block;
  e.stream = stream;
  const int device = backend::current_device();
  e.device = device;
  host_lock lock(rt.mutex);
  if (backend::context_lost()) {
    text message = "cuguard: cannot launch ";
    message << e.kernel << ": an earlier emulated kernel trapped, and a trapped CUDA context is lost";
    throw cuda_error(0, message.c_str());
  }
  e.id = ++rt.launches;
  rt.ring[e.id % runtime_state::ring_size] = e;
#if CUGUARD_IMPL_CHECKS
  // Asked of the runtime once a launch: the launch number is written as a graph node while it is.
  const bool captured = backend::capturing(stream);
  // Setting a device up allocates and copies synchronously, which a graph capture forbids.
  if (captured && !device_set_up_locked(device)) {
    text what = "cannot capture ";
    what << describe_launch(e) << " into a CUDA graph: cuguard sets device " << device
         << " up (or a newly loaded module) at its first launch, and a capture cannot record that; launch once "
            "with cuguard::launch before capturing";
    throw_cuda(cudaErrorStreamCaptureUnsupported, what);
  }
  device_runtime& d = ensure_device_locked(device);
  d.last_launch = e.id;
  d.note_stream(stream);
  if (const backend::status s = backend::record_launch(d.launch_id, e.id, stream, captured))
    throw_cuda(s, text("cannot record ") << describe_launch(e));
#else
  if (device_runtime* d = device_slot_locked(device)) d->last_launch = e.id;
#endif
  return e;
}

/// Checks a kernel argument before the launch: a view of host memory, of another device's
/// memory, or of a released allocation is reported at the launch site.
template <class P>
void check_argument(P& arg, const launch_entry& e, int device) {
#if CUGUARD_IMPL_CHECKS
  if constexpr (argument_view<P>::value) {
    const auto& p = argument_view<P>::get(arg);
    const bool host = p.space() == memory_space::host;
    const bool other_device = p.space() == memory_space::device && p.device() >= 0 && p.device() != device;
    const bool stale = !alive(p.token());
    if (!host && !other_device && !stale) return;
    report_host(
        [&](record& r) {
          fill_view(r, p);
          violation& v = r.v;
          v.op = operation::launch;
          if (stale) {
            v.kind = violation_kind::use_after_free;
            v.slot = p.token().slot;
            v.generation = p.token().generation;
          } else {
            v.kind = violation_kind::wrong_memory_space;
            v.kernel_device = device;
          }
          copy_text(v.launch.kernel, e.kernel.c_str());
          v.launch.id = e.id;
        },
        e.where);
  }
#else
  (void)arg, (void)e, (void)device;
#endif
}

/// A text kept for the life of the program, each once (labels and launch sites that reports may
/// read long after): `t` itself the first time, then that copy.
inline const char* kept_text(text&& t) {
  struct entry {
    entry* next;
    text value;
  };
  static entry* texts = nullptr; // under the runtime's lock; never freed
  host_lock lock(runtime().mutex);
  for (entry* e = texts; e != nullptr; e = e->next)
    if (std::strcmp(e->value.c_str(), t.c_str()) == 0) return e->value.c_str();
  texts = new entry{texts, static_cast<text&&>(t)};
  return texts->value.c_str();
}

/// "argument <position> of <kernel>", the kernel's name without its namespaces (the report's
/// launch line names it whole; a label is kept in a record field of fixed size): the label of a
/// view argument that has none, such as ATen's accessor converted to cuguard's.
inline const char* argument_label(const text& kernel, int position) {
  const char* unqualified = kernel.c_str();
  int depth = 0;
  for (const char* p = kernel.c_str(); *p != '\0'; ++p) {
    if (*p == '<' || *p == '(') ++depth;
    if (*p == '>' || *p == ')') --depth;
    if (depth == 0 && p[0] == ':' && p[1] == ':') unqualified = p + 2;
  }
  text name;
  name << "argument " << position << " of " << unqualified;
  return kept_text(static_cast<text&&>(name));
}

/// Where a sanitized build follows raw pointers (emulation, detail/runtime/live_memory.hpp): told,
/// at each launch, which memory each pointer argument points into, its label and element type.
inline void (*pointer_argument_hook)(const void* p, const char* label, const char* type, std::size_t element_bytes) =
    nullptr;

/// The name of parameter `position` (1 for the first) in `parameters` ("src,ptr,out"), kept for
/// the life of the program; null where the list names none.
inline const char* parameter_label(const char* parameters, int position) {
  if (parameters == nullptr) return nullptr;
  const char* begin = parameters;
  for (int k = 1; k < position; ++k) {
    begin = std::strchr(begin, ',');
    if (begin == nullptr) return nullptr;
    ++begin;
  }
  const char* end = std::strchr(begin, ',');
  if (end == nullptr) end = begin + std::strlen(begin);
  if (end == begin) return nullptr;
  text name;
  for (const char* c = begin; c != end; ++c) name << *c;
  return kept_text(static_cast<text&&>(name));
}

/// Gives a view argument without a label a label: its parameter's name where `parameters` (the
/// launch's, or null) gives it, else its position ("argument 1 of k"); tells the pointer
/// argument hook, where there is one, of a pointer argument, so labelled.
template <class P>
void name_argument(P& arg, const launch_entry& e, int position, const char* parameters = nullptr) {
  if constexpr (argument_view<P>::value) {
    auto& p = argument_view<P>::get(arg);
    if (p.label_ref().text == nullptr) {
      const char* named = parameter_label(parameters, position);
      p = p.relabel(named != nullptr ? named : argument_label(e.kernel, position));
    }
  } else if constexpr (std::is_pointer<P>::value && !std::is_function<std::remove_pointer_t<P>>::value) {
    using element = std::remove_cv_t<std::remove_pointer_t<P>>;
    if constexpr (!std::is_void<element>::value) {
      if (pointer_argument_hook != nullptr && arg != nullptr) {
        const char* named = parameter_label(parameters, position);
        // (a volatile T* too: what the hook reads is the address)
        pointer_argument_hook(const_cast<const element*>(arg), named != nullptr ? named : argument_label(e.kernel, position),
                              type_name<element>::value, sizeof(element));
      }
    }
  }
  (void)arg, (void)e, (void)position, (void)parameters;
}

/// Gives a view argument the number of its launch, so that a report names this launch even when
/// kernels of other streams started since (the device's launch-number cell names the last one).
template <class P>
void stamp_launch(P& arg, std::uint64_t id) noexcept {
  if constexpr (argument_view<P>::value) {
    auto& p = argument_view<P>::get(arg);
    p = p.with_launch_number(id);
  }
  (void)arg, (void)id;
}
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
