// Manifest: files -> specs, merged, cross-checked, indexed.
#include <tileops/manifest/manifest.hpp>

#include "compiled_spec.hpp"
#include "expr/resolve.hpp"
#include "load/spec_loader.hpp"
#include "load/type_families.hpp"
#include "manifest_impl.hpp"
#include "nearest.hpp"

#include <tileops/embedded.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace tileops::manifest {
namespace detail {
std::span<const tileops::EmbeddedFile> embedded_spec_files();
}

namespace {

using detail::Problems;
using detail::Where;

struct SourceFile {
  std::string name;     // "norm.yaml"
  std::string display;  // what messages call it
  std::string text;
};

// "<family>.yaml" or "<family>_<shard>.yaml" -> family; nullopt for other names.
std::optional<std::string> family_of(const std::string& file) {
  static const std::regex kFamilyFile("([a-z][a-z0-9]*)(_[a-z0-9]+)?\\.yaml");
  std::smatch m;
  if (!std::regex_match(file, m, kFamilyFile)) return std::nullopt;
  return m[1].str();
}

class Loader {
 public:
  Manifest::Impl run(std::vector<SourceFile> files) {
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    std::vector<std::pair<const SourceFile*, YAML::Node>> family_files;
    for (const SourceFile& f : files) {
      YAML::Node root;
      try {
        root = YAML::Load(f.text);
      } catch (const YAML::ParserException& e) {
        problems_.add(f.display, e.mark.line + 1, "", "malformed YAML: " + e.msg);
        continue;
      }
      if (f.name == "types.yaml") {
        impl_.families = detail::load_type_families(root, f.display, problems_);
      } else if (family_of(f.name)) {
        family_files.emplace_back(&f, root);
      } else {
        problems_.add(f.display, 0, "", "a spec file is named <family>.yaml or <family>_<shard>.yaml (or types.yaml)");
      }
    }
    for (const auto& [file, root] : family_files) load_family(*file, root);
    for (size_t k = 0; k < impl_.ops.size(); ++k) {
      impl_.by_name.emplace(impl_.ops[k].name(), k);
      impl_.names.push_back(impl_.ops[k].name());
    }
    for (const OpSpec& op : impl_.ops) check_composition(op);
    problems_.throw_if_any();
    return std::move(impl_);
  }

 private:
  void load_family(const SourceFile& file, const YAML::Node& root) {
    Where top{&file.display, 1, ""};
    if (!root.IsMap() || root.size() == 0) {
      problems_.add(file.display, 1, "", "a spec file is a non-empty mapping from op name to spec");
      return;
    }
    detail::MapReader entries(root, top, problems_);
    for (const detail::Entry& e : entries.entries()) {
      auto [first, fresh] = seen_.emplace(e.key, file.display + ":" + std::to_string(e.line));
      if (!fresh) {
        problems_.add(file.display, e.line, e.key, "duplicate op (first at " + first->second + ")");
        continue;
      }
      impl_.ops.emplace_back(detail::load_spec(e, file.display, *family_of(file.name), impl_.families, problems_));
    }
  }

  void problem(const OpSpec& op, int line, const std::string& key, std::string message) {
    problems_.add(op.file(), line, op.name() + ".composition" + key, std::move(message));
  }

  // Steps name real ops, their params and tensor counts; data flows forward; every
  // composite output is produced exactly once.
  void check_composition(const OpSpec& op) {
    if (!op.is_composite()) return;
    std::vector<std::string> available;
    for (const TensorSpec& t : op.inputs()) available.push_back(t.name);
    std::vector<int> produced(op.outputs().size(), 0);
    for (size_t k = 0; k < op.composition().size(); ++k) {
      const CompositionStep& step = op.composition()[k];
      const std::string key = "[" + std::to_string(k) + "]";
      auto it = impl_.by_name.find(step.op);
      if (it == impl_.by_name.end()) {
        auto hint = detail::did_you_mean(step.op, impl_.names);
        problem(op, step.line, key, "unknown op '" + step.op + "'" + (hint ? "; did you mean '" + *hint + "'?" : ""));
      } else {
        const OpSpec& callee = impl_.ops[it->second];
        for (const auto& [name, text] : step.params)
          if (!callee.param_index(name)) problem(op, step.line, key, step.op + " has no parameter '" + name + "'");
        if (step.inputs.size() != callee.inputs().size())
          problem(op, step.line, key, step.op + " takes " + std::to_string(callee.inputs().size()) +
                                          " inputs (~ for an omitted optional one), got " + std::to_string(step.inputs.size()));
        if (step.outputs.size() != callee.outputs().size())
          problem(op, step.line, key, step.op + " has " + std::to_string(callee.outputs().size()) + " outputs, got " +
                                          std::to_string(step.outputs.size()));
      }
      for (const std::string& name : step.inputs)
        if (!name.empty() && std::find(available.begin(), available.end(), name) == available.end())
          problem(op, step.line, key, "'" + name + "' is neither an input of " + op.name() + " nor an earlier step's output");
      for (const std::string& name : step.outputs) {
        if (std::find(available.begin(), available.end(), name) != available.end()) {
          problem(op, step.line, key, "'" + name + "' is produced twice");
          continue;
        }
        available.push_back(name);
        if (auto k = op.output_index(name)) ++produced[*k];
      }
    }
    for (size_t k = 0; k < produced.size(); ++k)
      if (produced[k] != 1)
        problem(op, op.line(), "", "output '" + op.outputs()[k].name + "' must be produced by exactly one step");
  }

  Problems problems_;
  Manifest::Impl impl_;
  std::unordered_map<std::string, std::string> seen_;
};


}  // namespace

Manifest::Manifest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Manifest::Manifest(Manifest&&) noexcept = default;
Manifest& Manifest::operator=(Manifest&&) noexcept = default;
Manifest::~Manifest() = default;

Manifest Manifest::load_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<SourceFile> files;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) throw SpecError({{dir, 0, "", "cannot read the spec directory: " + ec.message()}});
  for (const auto& entry : it) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.push_back({entry.path().filename().string(), (fs::path(dir) / entry.path().filename()).string(), text.str()});
  }
  return Manifest(std::make_unique<Impl>(Loader().run(std::move(files))));
}

Manifest Manifest::load_embedded() {
  std::vector<SourceFile> files;
  for (const EmbeddedFile& f : detail::embedded_spec_files())
    files.push_back({std::string(f.path), "manifest/spec/" + std::string(f.path), std::string(f.data)});
  return Manifest(std::make_unique<Impl>(Loader().run(std::move(files))));
}

const Manifest& Manifest::builtin() {
  static const Manifest manifest = [] {
    const char* dir = std::getenv("TILEOPS_MANIFEST_DIR");
    return dir && *dir ? load_dir(dir) : load_embedded();
  }();
  return manifest;
}

const OpSpec* Manifest::find(std::string_view name) const {
  auto it = impl_->by_name.find(name);
  return it == impl_->by_name.end() ? nullptr : &impl_->ops[it->second];
}

std::vector<std::string> Manifest::nearest(std::string_view name, size_t n) const {
  return detail::nearest_names(name, impl_->names, n);
}

std::span<const OpSpec> Manifest::ops() const { return impl_->ops; }

std::vector<std::string> Manifest::families() const {
  std::vector<std::string> out;
  for (const OpSpec& op : impl_->ops)
    if (std::find(out.begin(), out.end(), op.family()) == out.end()) out.push_back(op.family());
  std::sort(out.begin(), out.end());
  return out;
}

std::span<const TypeFamily> Manifest::type_families() const { return impl_->families; }

}  // namespace tileops::manifest
