#pragma once
// A file compiled into a library by the tileops_embed CMake function.
#include <span>
#include <string_view>

namespace tileops {
struct EmbeddedFile {
  std::string_view path;  // relative to the embedding's base directory
  std::string_view data;  // followed by a NUL byte
};
}  // namespace tileops
