#include <tileops/manifest/json.hpp>

#include <tileops/manifest/workload.hpp>

#include <nlohmann/json.hpp>

namespace tileops::manifest {
namespace {

using nlohmann::json;

json flag(const TensorFlag& f) { return f.is_expr() ? json(f.expr) : json(f.value); }

json value(const ParamValue& v) {
  struct Visitor {
    json operator()(std::monostate) const { return nullptr; }
    json operator()(bool b) const { return b; }
    json operator()(int64_t i) const { return i; }
    json operator()(double f) const { return f; }
    json operator()(const std::string& s) const { return s; }
    json operator()(const std::vector<int64_t>& l) const { return l; }
    json operator()(const std::vector<double>& l) const { return l; }
    json operator()(DType d) const { return std::string(d.name()); }
  };
  return std::visit(Visitor{}, v);
}

json op_json(const OpSpec& op) {
  json out{{"name", op.name()},       {"family", op.family()},
           {"status", op.implemented() ? "implemented" : "spec-only"},
           {"ref_api", op.ref_api()}, {"doc", op.doc()},
           {"roof_key", std::string(op.roof_key())}};
  json params = json::array();
  for (const ParamSpec& p : op.params()) {
    json j{{"name", p.name}, {"type", p.type_text}, {"kw_only", p.kw_only}};
    if (p.default_value) j["default"] = value(*p.default_value);
    params.push_back(j);
  }
  json inputs = json::array();
  for (const TensorSpec& t : op.inputs())
    inputs.push_back({{"name", t.name}, {"dtype", t.dtype_text}, {"shape", t.shape_text},
                      {"optional", flag(t.optional)}, {"mutated", flag(t.mutated)},
                      {"write_only", flag(t.write_only)}, {"contiguous", flag(t.contiguous)}, {"host", t.host}});
  json outputs = json::array();
  for (const TensorSpec& t : op.outputs()) {
    json j{{"name", t.name}, {"dtype", t.dtype_text}, {"shape", t.shape_text}, {"buffer_out", t.buffer_out}};
    if (t.alias >= 0) j["alias"] = op.inputs()[size_t(t.alias)].name;
    outputs.push_back(j);
  }
  json steps = json::array();
  for (const CompositionStep& s : op.composition()) steps.push_back(s.op);
  json cases = json::array();
  for (const WorkloadCase& c : op.workload_cases()) cases.push_back(c.id);
  out["params"] = params;
  out["inputs"] = inputs;
  out["outputs"] = outputs;
  out["composition"] = steps;
  out["workloads"] = cases;
  return out;
}

}  // namespace

std::string manifest_json(const Manifest& manifest, int indent) {
  json ops = json::array();
  for (const OpSpec& op : manifest.ops()) ops.push_back(op_json(op));
  json families = json::array();
  for (const TypeFamily& f : manifest.type_families()) families.push_back(f.name);
  return json{{"ops", ops}, {"type_families", families}}.dump(indent);
}

}  // namespace tileops::manifest
