#include "loader/elf_probe.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>

namespace tileops::detail {
namespace {

std::string machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_386: return "i386";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    default: return "machine " + std::to_string(machine);
  }
}

uint16_t host_machine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__powerpc64__)
  return EM_PPC64;
#else
  return EM_NONE;
#endif
}

}  // namespace

std::optional<std::string> elf_mismatch(const std::string& path) {
  unsigned char header[EI_NIDENT + 4] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(header), sizeof header))
    return "not a shared library: the file is too short for an ELF header";
  if (std::memcmp(header, ELFMAG, SELFMAG) != 0)
    return "not a shared library: the file has no ELF header";
  const bool host64 = sizeof(void*) == 8;
  if ((header[EI_CLASS] == ELFCLASS64) != host64)
    return std::string("wrong architecture: a ") +
           (header[EI_CLASS] == ELFCLASS64 ? "64" : "32") + "-bit library on a " +
           (host64 ? "64" : "32") + "-bit host";
  uint16_t machine = header[EI_DATA] == ELFDATA2LSB
                         ? uint16_t(header[EI_NIDENT + 2] | header[EI_NIDENT + 3] << 8)
                         : uint16_t(header[EI_NIDENT + 2] << 8 | header[EI_NIDENT + 3]);
  if (host_machine() != EM_NONE && machine != host_machine())
    return "wrong architecture: built for " + machine_name(machine) + ", this host is " +
           machine_name(host_machine());
  return std::nullopt;
}

}  // namespace tileops::detail
