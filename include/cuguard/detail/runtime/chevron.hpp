// SPDX-License-Identifier: Apache-2.0
// What a `kernel<<<grid, block, shared, stream>>>(args)` launch becomes when a .cu file is built
// by the host compiler under emulation (cuguard_emulate, cuguard.torch): the build's copy of the
// file calls chevron(kernel, call, site, grid, block, shared, stream)(args), which is cuguard::launch.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/launch.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstring>
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

/// How a rewritten launch starts its kernel: cuguard::launch (cuguard::torch has its own).
struct plain_launch {
  template <class Call, class... Params, class... Args>
  static void run(const launch_config& config, void (*kernel)(Params...), Call call, Args&&... args) {
    launch_calling(config, kernel, call, std::forward<Args>(args)...);
  }
};

/// `kernel<<<config>>>` waiting for its arguments: `(args...)` launches it through `Launch`, its
/// threads running `call` (the kernel named at compile time, or the kernel pointer itself).
template <class Launch, class Call, class... Params>
struct chevron_launch {
  void (*kernel)(Params...);
  Call call;
  launch_config config;

  template <class... Args>
  void operator()(Args&&... args) const {
    Launch::run(config, kernel, call, std::forward<Args>(args)...);
  }
};

/// `kernel<<<grid, block, shared_bytes, stream>>>`, launched at `site`, its threads calling
/// `call(args...)`: the translator passes a lambda that names the kernel, so that the host
/// compiler can inline it into the loop over a block's threads.
template <class Call, class... Params>
chevron_launch<plain_launch, Call, Params...> chevron(void (*kernel)(Params...), Call call,
                                                      const cuda::std::source_location& site, dim3 grid, dim3 block,
                                                      std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return {kernel, call, launch_config(grid, block, shared_bytes, stream, nullptr, site)};
}

/// The same, for a kernel given by an expression (`(pick ? a : b)<<<...>>>`): its threads call the pointer.
template <class... Params>
chevron_launch<plain_launch, void (*)(Params...), Params...> chevron(void (*kernel)(Params...),
                                                                     const cuda::std::source_location& site, dim3 grid,
                                                                     dim3 block, std::size_t shared_bytes = 0,
                                                                     cudaStream_t stream = nullptr) {
  return chevron(kernel, kernel, site, grid, block, shared_bytes, stream);
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
