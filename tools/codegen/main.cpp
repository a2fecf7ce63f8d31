// tileops_gen_ops: writes the typed op class headers for the manifest.
//
//   tileops_gen_ops --out <dir> [--spec-dir <dir>]
//
// Writes <dir>/tileops/ops/<family>.hpp per family and <dir>/tileops/ops/all.hpp, from
// the specs compiled into the tool (or from --spec-dir). A file whose contents did not
// change is left untouched, so dependents do not rebuild.
#include "generate.hpp"

#include <tileops/manifest/manifest.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

void write_if_changed(const std::filesystem::path& path, const std::string& contents) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream old;
  old << in.rdbuf();
  if (in && old.str() == contents) return;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

int usage() {
  std::cerr << "usage: tileops_gen_ops --out <dir> [--spec-dir <dir>]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, spec_dir;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if ((arg == "--out" || arg == "--spec-dir") && k + 1 < argc) (arg == "--out" ? out : spec_dir) = argv[++k];
    else return usage();
  }
  if (out.empty()) return usage();
  try {
    using tileops::manifest::Manifest;
    Manifest manifest = spec_dir.empty() ? Manifest::load_embedded() : Manifest::load_dir(spec_dir);
    for (const auto& [path, contents] : tileops::manifest::codegen::generate_op_headers(manifest))
      write_if_changed(std::filesystem::path(out) / path, contents);
  } catch (const std::exception& e) {
    std::cerr << "tileops_gen_ops: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
