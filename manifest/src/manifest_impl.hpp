#pragma once
#include "expr/resolve.hpp"

#include <tileops/manifest/manifest.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace tileops::manifest {

struct Manifest::Impl {
  std::vector<OpSpec> ops;
  std::unordered_map<std::string, size_t, detail::StringHash, std::equal_to<>> by_name;
  std::vector<std::string> names;  // for nearest()
  std::vector<TypeFamily> families;
};

}  // namespace tileops::manifest
