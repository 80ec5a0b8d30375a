// SPDX-License-Identifier: Apache-2.0
// What a `kernel<<<grid, block, shared, stream>>>(args)` launch becomes when a .cu file is built
// by the host compiler under emulation (cuguard_emulate, cuguard.torch): the build's copy of the
// file calls chevron_named<Launch>(call, pointer, name, site, grid, block, shared, stream)(args),
// which is cuguard::launch (python/cuguard/emulate.py writes it).
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/launch.hpp>
#include <cuguard/ptr.hpp>
#if CUGUARD_EMULATION
#  include <cuguard/detail/emulation/grid_barrier.hpp>
#  include <cuguard/detail/runtime/emulated_device.hpp>
#  include <cuguard/detail/runtime/kernel_registry.hpp>
#endif

#include <cuda/std/source_location>

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// The name of the function that encloses `pretty` (__PRETTY_FUNCTION__): within a lambda the
/// enclosing function's ("lltm_forward" of "lltm_forward(at::Tensor)::<lambda()>::<lambda()>"), so
/// that a launch inside AT_DISPATCH's lambda is said to be made by the function that dispatched.
/// Kept for the life of the program (a launch site's function is read by later reports).
inline const char* enclosing_function(const char* pretty, const char* fallback) {
  const char* lambda = pretty != nullptr ? std::strstr(pretty, "::<lambda") : nullptr;
  if (lambda == nullptr) return fallback;
  // Drop the parameter list (the last top-level parenthesis before the lambda).
  const char* end = lambda;
  int depth = 0;
  for (const char* p = lambda; p-- > pretty;) {
    if (*p == ')') ++depth;
    if (*p == '(' && --depth == 0) {
      end = p;
      break;
    }
  }
  // A function template's return type, where the compiler wrote one, ends at the last top-level space.
  const char* begin = pretty;
  depth = 0;
  for (const char* p = pretty; p < end; ++p) {
    if (*p == '<' || *p == '(') ++depth;
    if (*p == '>' || *p == ')') --depth;
    if (*p == ' ' && depth == 0) begin = p + 1;
  }
  text name;
  name.append(begin, static_cast<std::size_t>(end - begin));
  return kept_text(static_cast<text&&>(name));
}

/// The launch site of a rewritten <<<>>> launch: where it stands, named after the enclosing function.
inline cuda::std::source_location chevron_site(const char* pretty,
                                               cuda::std::source_location where = cuda::std::source_location::current()) {
  return cuda::std::source_location::current(where.file_name(), enclosing_function(pretty, where.function_name()),
                                             where.line(), where.column());
}

/// How a rewritten launch starts its kernel: cuguard::launch, on the stream given, a configuration
/// CUDA refuses left to cudaGetLastError as on a GPU (cuguard::torch has its own).
struct plain_launch {
  static cudaStream_t stream(cudaStream_t given) { return given; }
  template <class Call, class... Params, class... Args>
  static void run(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
    launch_calling<false>(config, kernel, call, std::forward<Args>(args)...);
  }
};

/// The identity of a launch whose kernel the arguments pick: a function of the arguments' types
/// that no thread runs (they run the launch's `Call`).
template <class Call, class... Params>
void deduced_kernel(Params...) {}

/// `kernel<<<config>>>` waiting for its arguments: `(args...)` launches it through `Launch`, its
/// threads running `call` (the kernel named at compile time, or the kernel pointer itself).
template <class Launch, class Call, class... Params>
struct chevron_launch {
  void (*kernel)(Params...);
  Call call;
  launch_config config;

  template <class... Args>
  void operator()(Args&&... args) const {
    if constexpr (sizeof...(Args) < sizeof...(Params)) {
      // Default arguments: the threads call the kernel by name (`call`), which supplies them; the
      // launch's parameters are the arguments given, and reports name the kernel of `kernel`.
      launch_config named = config;
      if (named.name == nullptr) named.name = keep_label(backend::kernel_name(reinterpret_cast<const void*>(kernel)).c_str());
      Launch::run(named, &deduced_kernel<Call, std::decay_t<Args>...>, call, std::forward<Args>(args)...);
    } else {
      Launch::run(config, kernel, call, std::forward<Args>(args)...);
    }
  }
};

/// An argument of a launch whose kernel's raw pointers the build made checked (a file translated
/// with checked pointers, cuguard/pointers.py): a T* is a cuguard::ptr<T>, converted on the host
/// (its bounds: the allocation or tensor it points into), so that a kernel template's arguments
/// are deduced from it as from the T*; anything else as it is.
template <bool CheckedPointers, class A>
struct launch_argument_type {
  using type = A;
};
#if CUGUARD_IMPL_CHECKS
template <class T>
struct launch_argument_type<true, T*> {
  using type = std::conditional_t<std::is_object<T>::value || std::is_void<T>::value, ptr<T>, T*>;
};
#endif
template <bool CheckedPointers, class A>
using launch_argument_t = typename launch_argument_type<CheckedPointers, A>::type;
template <bool CheckedPointers, class A>
launch_argument_t<CheckedPointers, std::decay_t<A>> launch_argument(A&& a) {
  return std::forward<A>(a);
}

/// `kernel<<<config>>>` for a kernel template whose template arguments the launch's arguments
/// deduce, as nvcc deduces them: each thread calls `call(args...)`, which deduces them and
/// converts the arguments as a call does; the launch's parameters are the arguments' types, and
/// reports name the kernel as the launch spells it.
template <class Launch, class Call, bool CheckedPointers = false>
struct deduced_chevron_launch {
  Call call;
  launch_config config;

  template <class... Args>
  void operator()(Args&&... args) const {
    Launch::run(config, &deduced_kernel<Call, launch_argument_t<CheckedPointers, std::decay_t<Args>>...>, call,
                launch_argument<CheckedPointers>(std::forward<Args>(args))...);
  }
};

/// The function `kernel` names, as a pointer; not viable where it names a template whose
/// arguments a call deduces (chevron_named tells the two apart).
template <class... Params>
constexpr auto kernel_pointer(void (*kernel)(Params...), int) {
  return kernel;
}

/// A kernel given as a `void*` variable to cudaLaunchKernel: its parameters cannot be told.
template <class T>
constexpr auto kernel_pointer(T*, long) -> void (*)() {
  static_assert(sizeof(T) == 0, "cuguard emulation: cudaLaunchKernel / cudaLaunchCooperativeKernel need the kernel "
                                "named in the call ((void*)kernel): a void* variable does not tell its parameters");
  return nullptr;
}

template <class Launch, class Call, class... Params>
chevron_launch<Launch, Call, Params...> make_chevron(void (*kernel)(Params...), Call call, const launch_config& config) {
  return {kernel, call, config};
}

/// `name<<<grid, block, shared_bytes, stream>>>` for a kernel the launch names (`k`,
/// `ns::k<T, 4>`, a pointer variable), launched at `site` through `Launch`, its threads calling
/// `call(args...)` (a lambda that names the kernel, so that the host compiler can inline it into
/// the loop over a block's threads). `pointer(0)` is the kernel's pointer where `name` names one
/// function; where it names a template whose arguments the call deduces, it is not viable, and
/// the launch takes its parameters from its arguments (deduced_chevron_launch).
/// (`CheckedPointers`: the kernel's raw pointers are checked, launch_argument.)
template <class Launch, bool CheckedPointers = false, class Call, class Pointer>
auto chevron_named(Call call, Pointer pointer, const char* name, const cuda::std::source_location& site, dim3 grid,
                   dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  if constexpr (std::is_invocable<Pointer, int>::value) {
    return make_chevron<Launch>(pointer(0), call,
                                launch_config(grid, block, shared_bytes, Launch::stream(stream), nullptr, site));
  } else {
    (void)pointer;
    return deduced_chevron_launch<Launch, Call, CheckedPointers>{
        call, launch_config(grid, block, shared_bytes, Launch::stream(stream), name, site)};
  }
}

/// The names of a kernel's parameters, comma-separated ("src,ptr,out"; empty where one has
/// none), as the translator read them from the kernel's declaration: the labels of arguments that
/// carry none (a T* converted to a cuguard::ptr, ATen's accessor), in place of "argument 1 of k".
struct parameter_names {
  const char* list;
};

/// chevron_named for a kernel whose declaration the translator read: its parameters named.
template <class Launch, bool CheckedPointers = false, class Call, class Pointer>
auto chevron_named(Call call, Pointer pointer, const char* name, parameter_names parameters,
                   const cuda::std::source_location& site, dim3 grid, dim3 block, std::size_t shared_bytes = 0,
                   cudaStream_t stream = nullptr) {
  auto launch = chevron_named<Launch, CheckedPointers>(call, pointer, name, site, grid, block, shared_bytes, stream);
  launch.config.parameters = parameters.list;
  return launch;
}

/// `kernel<<<grid, block, shared_bytes, stream>>>` for a kernel given by an expression
/// (`(pick ? a : b)<<<...>>>`) or at namespace scope: its threads call the pointer.
template <class Launch, class... Params>
chevron_launch<Launch, void (*)(Params...), Params...> chevron(void (*kernel)(Params...),
                                                               const cuda::std::source_location& site, dim3 grid,
                                                               dim3 block, std::size_t shared_bytes = 0,
                                                               cudaStream_t stream = nullptr) {
  return {kernel, kernel, launch_config(grid, block, shared_bytes, Launch::stream(stream), nullptr, site)};
}

#if CUGUARD_EMULATION
/// True if the emulated device holds every block of the grid at once (a cooperative launch's
/// condition: the blocks a multiprocessor holds, cudaOccupancyMaxActiveBlocksPerMultiprocessor's,
/// times the multiprocessors).
inline bool co_resident(dim3 grid, dim3 block, std::size_t shared_bytes) {
  cudaDeviceProp p;
  emulated_runtime::describe_device(p);
  const int per_sm = emulated_runtime::blocks_per_multiprocessor(p, static_cast<int>(block.x * block.y * block.z), shared_bytes);
  return 1ull * grid.x * grid.y * grid.z <= static_cast<unsigned long long>(per_sm) * static_cast<unsigned>(p.multiProcessorCount);
}

template <class Launch, class... Params, std::size_t... I>
void launch_arguments(const launch_config& config, void (*kernel)(Params...), void** args, std::index_sequence<I...>) {
  Launch::run(config, kernel, kernel, *static_cast<std::decay_t<Params>*>(args[I])...);
}

/// `cudaLaunchKernel((void*)kernel, grid, block, args, shared_bytes, stream)`, or with
/// `cooperative` cudaLaunchCooperativeKernel, of a kernel the call names, as the translator writes
/// them (`site`: the call's): `args[i]` points at the kernel's i-th argument. Returns what CUDA's
/// returns: the sticky error of a lost context, cudaErrorInvalidConfiguration, and for a cooperative
/// launch cudaErrorCooperativeLaunchTooLarge where the device cannot hold every block at once;
/// a cooperative grid runs all its blocks at once, this_grid().sync() their barrier.
template <class Launch, class... Params>
cudaError_t launch_with_arguments(void (*kernel)(Params...), bool cooperative, const cuda::std::source_location& site,
                                  dim3 grid, dim3 block, void** args, std::size_t shared_bytes = 0,
                                  cudaStream_t stream = nullptr) {
  cudaError_t& last = backend::last_error();
  if (backend::context_lost()) return last = backend::lost_context_error();
  if (kernel == nullptr || (sizeof...(Params) != 0 && args == nullptr)) return last = cudaErrorInvalidValue;
  if (!backend::launchable(grid, block)) return last = cudaErrorInvalidConfiguration;
  if (cooperative && !co_resident(grid, block, shared_bytes)) return last = cudaErrorCooperativeLaunchTooLarge;
  const engine::cooperative_scope scope(cooperative);
  launch_arguments<Launch>(launch_config(grid, block, shared_bytes, Launch::stream(stream), nullptr, site), kernel,
                           args, std::index_sequence_for<Params...>{});
  return cudaSuccess;
}

/// Whether `config`'s attributes ask for a cooperative launch (into `cooperative`):
/// cudaErrorNotSupported for a cluster of more than one block, which the emulation does not
/// model; the other attributes (programmatic dependent launch, priority, memory synchronization
/// domains) change nothing where launches run one after another.
inline cudaError_t launch_attributes(const cudaLaunchConfig_t& config, bool& cooperative) {
  cooperative = false;
  if (config.numAttrs != 0 && config.attrs == nullptr) return cudaErrorInvalidValue;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    const cudaLaunchAttribute& a = config.attrs[i];
    if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
    if (a.id == cudaLaunchAttributeClusterDimension &&
        std::size_t{a.val.clusterDim.x} * a.val.clusterDim.y * a.val.clusterDim.z > 1)
      return cudaErrorNotSupported;
  }
  return cudaSuccess;
}

/// cudaLaunchKernelEx(config, kernel, args...) of a kernel given as its function, as the
/// toolkit's template forwards it (each argument converted to its parameter's type), at `site`
/// (the translated file's call; <cuguard/emulated_runtime.hpp> names this cudaLaunchKernelEx).
template <class... Params, class... Args>
cudaError_t launch_kernel_ex(const cuda::std::source_location& site, const cudaLaunchConfig_t* config,
                             void (*kernel)(Params...), Args&&... args) {
  bool cooperative = false;
  const cudaError_t e = config == nullptr ? cudaErrorInvalidValue : launch_attributes(*config, cooperative);
  if (e != cudaSuccess) return backend::last_error() = e;
  return [&](Params... converted) {
    void* pointers[] = {const_cast<void*>(static_cast<const void*>(&converted))..., nullptr};
    return launch_with_arguments<plain_launch>(kernel, cooperative, site, config->gridDim, config->blockDim, pointers,
                                               config->dynamicSmemBytes, config->stream);
  }(std::forward<Args>(args)...);
}

template <class Launch, class... Params>
cudaError_t launch_registered(const void* kernel, bool cooperative, const cuda::std::source_location& site, dim3 grid,
                              dim3 block, void** args, std::size_t shared_bytes, cudaStream_t stream) {
  return launch_with_arguments<Launch>(reinterpret_cast<void (*)(Params...)>(const_cast<void*>(kernel)), cooperative,
                                       site, grid, block, args, shared_bytes, stream);
}
template <class Launch, class... Params>
bool register_pointer(void (*kernel)(Params...)) {
  kernel_registry::get().add(reinterpret_cast<const void*>(kernel), &launch_registered<Launch, Params...>);
  return true;
}
/// Registers the kernel `pointer(0)` gives for cudaLaunchKernel and cudaLaunchCooperativeKernel
/// (the translator writes the call after each kernel's definition); a name that gives no one
/// function (an overload set) is not registered.
template <class Launch, class Pointer>
bool register_kernel(Pointer pointer) {
  if constexpr (std::is_invocable<Pointer, int>::value) {
    return register_pointer<Launch>(pointer(0));
  } else {
    (void)pointer;
    return false;
  }
}

#endif // CUGUARD_EMULATION

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
