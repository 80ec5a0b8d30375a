// SPDX-License-Identifier: Apache-2.0
// The name of a function that the dynamic symbol table does not list (a kernel in an anonymous
// namespace, a static kernel): read from the symbol table of the file it was loaded from.
#pragma once

#include <cuguard/config.hpp>

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// Calls `found(mangled name)` with the function symbol of `file`'s .symtab that holds `address`,
/// where `base` is the address the file was loaded at (dladdr's dli_fbase). Returns false where
/// the file cannot be read, is no 64-bit ELF file, has no symbol table (stripped), or no
/// function there holds the address.
template <class Found>
bool local_symbol(const char* file, const void* base, const void* address, Found&& found) {
  // dladdr names the main program as it was started (argv[0]), which need not open from here.
  int fd = file != nullptr && *file != '\0' ? ::open(file, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st{};
  void* map = ::fstat(fd, &st) == 0 && st.st_size > 0
                  ? ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  ::close(fd);
  if (map == MAP_FAILED) return false;
  const auto size = static_cast<std::size_t>(st.st_size);
  const auto* bytes = static_cast<const unsigned char*>(map);
  const auto* eh = static_cast<const Elf64_Ehdr*>(map);
  bool ok = false;
  const auto inside = [&](std::uint64_t offset, std::uint64_t length) { return offset <= size && length <= size - offset; };
  if (size >= sizeof(Elf64_Ehdr) && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shentsize == sizeof(Elf64_Shdr) && inside(eh->e_shoff, std::uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr))) {
    const auto* sections = reinterpret_cast<const Elf64_Shdr*>(bytes + eh->e_shoff);
    // Shared objects and position-independent executables hold addresses relative to their base.
    const std::uint64_t target = reinterpret_cast<std::uintptr_t>(address) -
                                 (eh->e_type == ET_DYN ? reinterpret_cast<std::uintptr_t>(base) : 0);
    for (unsigned s = 0; s < eh->e_shnum && !ok; ++s) {
      const Elf64_Shdr& symtab = sections[s];
      if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= eh->e_shnum || symtab.sh_entsize != sizeof(Elf64_Sym) ||
          !inside(symtab.sh_offset, symtab.sh_size))
        continue;
      const Elf64_Shdr& strtab = sections[symtab.sh_link];
      if (!inside(strtab.sh_offset, strtab.sh_size)) continue;
      const auto* syms = reinterpret_cast<const Elf64_Sym*>(bytes + symtab.sh_offset);
      const auto* names = reinterpret_cast<const char*>(bytes + strtab.sh_offset);
      for (std::size_t i = 0; i < symtab.sh_size / sizeof(Elf64_Sym); ++i) {
        const Elf64_Sym& sym = syms[i];
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= strtab.sh_size) continue;
        if (target < sym.st_value || target - sym.st_value >= (sym.st_size == 0 ? 1 : sym.st_size)) continue;
        const char* name = names + sym.st_name;
        if (std::memchr(name, '\0', strtab.sh_size - sym.st_name) == nullptr) continue;
        found(name);
        ok = true;
        break;
      }
    }
  }
  ::munmap(map, size);
  return ok;
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
