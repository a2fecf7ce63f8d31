#include "registry/op_catalog.hpp"

#include <tileops/manifest.hpp>

namespace tileops::detail {
namespace {

class ManifestCatalog final : public OpCatalog {
 public:
  bool knows(std::string_view op) const override {
    return manifest::Manifest::builtin().find(op) != nullptr;
  }
  bool is_composite(std::string_view op) const override {
    const auto* spec = manifest::Manifest::builtin().find(op);
    return spec && spec->is_composite();
  }
  std::vector<std::string> nearest(std::string_view op, size_t n) const override {
    return manifest::Manifest::builtin().nearest(op, n);
  }
};

}  // namespace

const OpCatalog& op_catalog() {
  static const ManifestCatalog catalog;
  return catalog;
}

}  // namespace tileops::detail
