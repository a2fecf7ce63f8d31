#include <tileops/manifest/op_spec.hpp>

#include "compiled_spec.hpp"

namespace tileops::manifest {
namespace {

template <class T>
std::optional<size_t> position(const std::vector<T>& items, std::string_view name) {
  for (size_t k = 0; k < items.size(); ++k)
    if (items[k].name == name) return k;
  return std::nullopt;
}

}  // namespace

OpSpec::OpSpec(std::unique_ptr<detail::CompiledSpec> compiled) : compiled_(std::move(compiled)) {}
OpSpec::OpSpec(OpSpec&&) noexcept = default;
OpSpec& OpSpec::operator=(OpSpec&&) noexcept = default;
OpSpec::~OpSpec() = default;

const std::string& OpSpec::name() const { return compiled_->name; }
const std::string& OpSpec::family() const { return compiled_->family; }
bool OpSpec::implemented() const { return compiled_->implemented; }
const std::string& OpSpec::ref_api() const { return compiled_->ref_api; }
const std::string& OpSpec::doc() const { return compiled_->doc; }
const std::string& OpSpec::file() const { return compiled_->file; }
int OpSpec::line() const { return compiled_->line; }

std::span<const IndexSpec> OpSpec::indices() const { return compiled_->indices; }
std::span<const ParamSpec> OpSpec::params() const { return compiled_->params; }
std::span<const TensorSpec> OpSpec::inputs() const { return compiled_->inputs; }
std::span<const TensorSpec> OpSpec::outputs() const { return compiled_->outputs; }
std::span<const std::string> OpSpec::shape_rules() const { return compiled_->rule_texts; }
std::span<const std::pair<std::string, std::string>> OpSpec::lets() const { return compiled_->let_texts; }

bool OpSpec::is_composite() const { return !compiled_->composition.empty(); }
std::span<const CompositionStep> OpSpec::composition() const { return compiled_->composition; }
const RooflineSpec& OpSpec::roofline() const { return compiled_->roofline; }
std::string_view OpSpec::roof_key() const { return compiled_->roofline.roof_key; }

std::optional<size_t> OpSpec::param_index(std::string_view name) const { return position(compiled_->params, name); }
std::optional<size_t> OpSpec::input_index(std::string_view name) const { return position(compiled_->inputs, name); }
std::optional<size_t> OpSpec::output_index(std::string_view name) const { return position(compiled_->outputs, name); }
std::optional<size_t> OpSpec::index_slot(std::string_view name) const { return position(compiled_->indices, name); }

}  // namespace tileops::manifest
