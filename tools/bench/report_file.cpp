#include "report.hpp"

#include <tileops/errors.hpp>

#include <filesystem>
#include <fstream>

namespace tileops::bench {

void write_report(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(p);
  if (!(out << text)) throw ValueError("cannot write " + path);
}

}  // namespace tileops::bench
