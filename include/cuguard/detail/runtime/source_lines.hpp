// SPDX-License-Identifier: Apache-2.0
// The file, line and function of a code address where no sanitizer's symbolizer is linked (an
// emulated kernel's fault, a raw access in a PyTorch extension built under emulation): asked of
// binutils' addr2line, which reads the module's line table (-g1 is enough). A report's cold path
// only; nothing where addr2line or the line table is missing.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/report/text.hpp>

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// True if `file` is an ELF executable linked at a fixed address (its code addresses are
/// addr2line's as they are; a shared object's, a position-independent program's, from its base).
inline bool fixed_address_module(const char* file) {
  const int fd = ::open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Ehdr header{};
  const bool read = ::read(fd, &header, sizeof header) == static_cast<ssize_t>(sizeof header);
  ::close(fd);
  return read && header.e_type == ET_EXEC;
}

/// Sets `file`, `function` and `line` of the code at `pc` (the innermost inlined function's, as
/// addr2line -i lists it first); false where it cannot be known.
inline bool source_line_of(const void* pc, text& file, text& function, unsigned& line) {
  Dl_info where{};
  if (pc == nullptr || ::dladdr(pc, &where) == 0 || where.dli_fname == nullptr) return false;
  const char* module = where.dli_fname[0] == '/' ? where.dli_fname : "/proc/self/exe";
  auto address = reinterpret_cast<std::uintptr_t>(pc);
  if (!fixed_address_module(module)) address -= reinterpret_cast<std::uintptr_t>(where.dli_fbase);
  text command = "addr2line -f -C -i -e '";
  for (const char* c = module; *c != '\0'; ++c) {
    if (*c == '\'') return false; // (no quoting games)
    command << *c;
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "' 0x%llx 2>/dev/null", static_cast<unsigned long long>(address));
  command << hex;
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) return false;
  char name[2048], position[2048];
  const bool got = std::fgets(name, sizeof name, out) != nullptr && std::fgets(position, sizeof position, out) != nullptr;
  ::pclose(out);
  if (!got) return false;
  name[std::strcspn(name, "\n")] = '\0';
  position[std::strcspn(position, "\n")] = '\0';
  char* colon = std::strrchr(position, ':');
  if (colon == nullptr || position[0] == '?') return false;
  *colon = '\0';
  line = static_cast<unsigned>(std::strtoul(colon + 1, nullptr, 10));
  if (line == 0) return false;
  file = text(position);
  function = text(name);
  return true;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
