// SPDX-License-Identifier: Apache-2.0
// The runtime's one seam to CUDA: every CUDA runtime call cuguard makes goes through
// detail::backend, whose two sides are backend/cuda.hpp and backend/emulated.hpp (the same
// functions, the same signatures). What both sides share is here.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/detail/report/text_parts.hpp>
#include <cuguard/violation.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

// The Itanium C++ ABI's demangler, declared as <cxxabi.h> declares it (a file of 700 lines that
// every translation unit would parse for this one function).
namespace __cxxabiv1 {
extern "C" char* __cxa_demangle(const char* mangled, char* buffer, std::size_t* length, int* status);
} // namespace __cxxabiv1

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace backend {

/// cudaError_t as an int, so that both backends share signatures (0: success).
using status = int;

/// "__cxa_demangle'd name without its parameter list" ("gather_rows", "ns::k<float>"), template
/// arguments as the source writes them (append_code_name).
inline text readable_name(const char* mangled) {
  if (mangled == nullptr) return "kernel";
  int rc = 0;
  char* demangled = __cxxabiv1::__cxa_demangle(mangled, nullptr, nullptr, &rc);
  text name;
  append_code_name(name, rc == 0 && demangled != nullptr ? demangled : mangled);
  std::free(demangled);
  if (name.starts_with("void ")) name.drop_front(5); // a function template's name starts with its return type
  // Drop the parameter list: the last top-level '(' (templates may hold parentheses too).
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      name.truncate(i);
      break;
    }
  }
  return name;
}

/// Reads the zero-terminated text at `address` with `copy(dst, src, bytes)` in pieces that stop at
/// 64-byte boundaries, so that no copy runs past the end of the memory the text lies in (a
/// module's globals, a page), or byte by byte where a piece cannot be copied; at most about 4096
/// characters. False when nothing could be read.
template <class Copy>
bool read_text_in_pieces(std::uint64_t address, text& out, const Copy& copy) {
  out = text();
  constexpr std::uint64_t piece = 64, limit = 4096;
  char buffer[piece];
  while (out.size() < limit) {
    std::size_t bytes = static_cast<std::size_t>(piece - address % piece);
    if (!copy(buffer, reinterpret_cast<const void*>(address), bytes)) {
      // The piece may run past the end of the memory the text lies in: one byte, then.
      bytes = 1;
      if (!copy(buffer, reinterpret_cast<const void*>(address), bytes)) return !out.empty();
    }
    for (std::size_t i = 0; i < bytes; ++i) {
      if (buffer[i] == '\0') return true;
      out << buffer[i];
    }
    address += bytes;
  }
  return true;
}

} // namespace backend
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

#if CUGUARD_IMPL_EMULATION
#  include <cuguard/detail/runtime/backend/emulated.hpp>
#else
#  include <cuguard/detail/runtime/backend/cuda.hpp>
#endif
