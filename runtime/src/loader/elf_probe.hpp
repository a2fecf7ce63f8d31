#pragma once
// Reads a file's ELF header so a failed dlopen can be explained precisely (not a
// shared library at all, or one built for another machine).
#include <optional>
#include <string>

namespace tileops::detail {

// Empty when `path` is an ELF file for this host's machine and class; otherwise
// why it cannot be (e.g. "not an ELF file", "built for aarch64, this host is x86_64").
std::optional<std::string> elf_mismatch(const std::string& path);

}  // namespace tileops::detail
