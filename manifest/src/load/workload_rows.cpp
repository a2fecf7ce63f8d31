#include "load/workload_rows.hpp"

#include "load/param_types.hpp"

#include <regex>

namespace tileops::manifest::detail {

bool valid_label(const std::string& label) {
  static const std::regex kLabel("[A-Za-z0-9._-]{1,28}");
  return std::regex_match(label, kLabel);
}

namespace {

class RowLoader {
 public:
  RowLoader(SpecContext& cx) : cx_(cx), spec_(cx.spec) {}

  void row(const YAML::Node& node, const Where& at) {
    MapReader fields(node, at, cx_.problems);
    if (!fields.is_map()) return;
    WorkloadRow row;
    row.line = at.line;
    for (const Entry& e : fields.entries()) {
      Where where = at.child(e.key, e.line);
      if (e.key == "label") label(e.value, where, row);
      else if (e.key == "some") some(e.value, where, row);
      else if (e.key == "dtype_cases") dtype_cases(e.value, where, row);
      else value(e.key, e.value, where, row);
    }
    if (row.label.empty() && !fields.take("label").IsDefined()) cx_.problem(at, "a workload row needs a label");
    if (!fields.take("dtype_cases").IsDefined()) cx_.problem(at, "a workload row needs dtype_cases");
    spec_.workloads.push_back(std::move(row));
  }

 private:
  void label(const YAML::Node& node, const Where& where, WorkloadRow& row) {
    auto s = read_string(node, where, cx_.problems);
    if (!s) return;
    if (!valid_label(*s)) {
      cx_.problem(where, "label '" + *s + "' must match [A-Za-z0-9._-]{1,28}");
      return;
    }
    row.label = *s;
  }

  void some(const YAML::Node& node, const Where& where, WorkloadRow& row) {
    if (!node.IsSequence()) {
      cx_.problem(where, "must be a list of optional input names");
      return;
    }
    for (const auto& item : node) {
      auto name = read_string(item, where, cx_.problems);
      if (!name) continue;
      const Binding* b = cx_.scope.find(*name);
      if (!b || b->kind != RefKind::Input) {
        cx_.problem(where, "'" + *name + "' is not an input");
        continue;
      }
      const TensorSpec& input = spec_.inputs[b->slot];
      if (!input.optional.value && !input.optional.is_expr()) {
        cx_.problem(where, "input '" + *name + "' is not optional");
        continue;
      }
      row.some |= uint64_t(1) << b->slot;
    }
  }

  void dtype_cases(const YAML::Node& node, const Where& where, WorkloadRow& row) {
    if (!node.IsSequence() || node.size() == 0) {
      cx_.problem(where, "must be a non-empty list of mappings, e.g. [{T: float16}]");
      return;
    }
    for (const auto& item : node) {
      Where at = where.at(line_of(item));
      MapReader mapping(item, at, cx_.problems);
      std::vector<std::pair<std::string, DType>> values;
      for (const Entry& e : mapping.entries()) {
        auto name = read_string(e.value, at, cx_.problems);
        if (!name) continue;
        auto dtype = DType::parse(*name);
        if (!dtype) {
          cx_.problem(at, "unknown dtype '" + *name + "'");
          continue;
        }
        if (!allowed_dtype(e.key, *dtype, at)) continue;
        values.emplace_back(e.key, *dtype);
      }
      row.dtype_cases.push_back(std::move(values));
    }
  }

  bool allowed_dtype(const std::string& name, DType dtype, const Where& at) {
    const Binding* b = cx_.scope.find(name);
    const std::vector<DType>* allowed = nullptr;
    if (b && b->kind == RefKind::Index && spec_.indices[b->slot].kind == IndexKind::DType) {
      allowed = &spec_.indices[b->slot].dtypes;
    } else if (b && b->kind == RefKind::Param && spec_.params[b->slot].kind == ParamKind::DType) {
      allowed = &spec_.params[b->slot].dtype_values;
    } else {
      cx_.problem(at, "dtype_cases key '" + name + "' is not a DType index or a dtype param");
      return false;
    }
    if (!allowed->empty() && std::find(allowed->begin(), allowed->end(), dtype) == allowed->end()) {
      std::string list;
      for (DType d : *allowed) list += (list.empty() ? "" : ", ") + std::string(d.name());
      cx_.problem(at, name + " = " + std::string(dtype.name()) + " is not one of " + list);
      return false;
    }
    return true;
  }

  void value(const std::string& key, const YAML::Node& node, const Where& where, WorkloadRow& row) {
    const Binding* b = cx_.scope.find(key);
    if (!b || (b->kind != RefKind::Index && b->kind != RefKind::Param)) {
      cx_.problem(where, "unknown key '" + key + "' (a row gives indices, params, some, dtype_cases and label)");
      return;
    }
    std::string error;
    auto raw = yaml_to_param_value(node, error);
    if (!raw) {
      cx_.problem(where, key + " " + error);
      return;
    }
    if (b->kind == RefKind::Param) {
      auto settled = coerce_param(spec_.params[b->slot], *raw, error);
      if (!settled) cx_.problem(where, "param '" + key + "' " + error);
      else row.params.emplace_back(key, std::move(*settled));
      return;
    }
    IndexKind kind = spec_.indices[b->slot].kind;
    if (kind == IndexKind::DType) {
      cx_.problem(where, "'" + key + "' is a DType index: give it in dtype_cases");
    } else if (kind == IndexKind::Dim) {
      auto* i = std::get_if<int64_t>(&*raw);
      if (!i || *i < 0) cx_.problem(where, "'" + key + "' is a Dim: give a non-negative int");
      else row.indices.emplace_back(b->slot, *raw);
    } else {
      auto* list = std::get_if<std::vector<int64_t>>(&*raw);
      if (!list || std::any_of(list->begin(), list->end(), [](int64_t d) { return d < 0; }))
        cx_.problem(where, "'" + key + "' is a Shape: give a list of non-negative ints");
      else row.indices.emplace_back(b->slot, *raw);
    }
  }

  SpecContext& cx_;
  CompiledSpec& spec_;
};

}  // namespace

void load_workloads(SpecContext& cx, const YAML::Node& node, const Where& where) {
  if (!node.IsSequence()) {
    cx.problem(where, "must be a list of rows");
    return;
  }
  RowLoader loader(cx);
  for (size_t k = 0; k < node.size(); ++k) {
    const YAML::Node item = node[k];
    loader.row(item, {where.file, line_of(item), where.key + "[" + std::to_string(k) + "]"});
  }
}

}  // namespace tileops::manifest::detail
