#include "load/spec_loader.hpp"

#include "load/signature_loader.hpp"
#include "load/spec_context.hpp"
#include "load/workload_rows.hpp"
#include "validate/inference.hpp"

#include <regex>

namespace tileops::manifest::detail {

bool valid_op_name(const std::string& name) {
  static const std::regex kName("[A-Z][A-Za-z0-9]*(Fwd|Bwd)Op");
  return std::regex_match(name, kName);
}

namespace {

class EntryLoader {
 public:
  EntryLoader(SpecContext& cx) : cx_(cx), spec_(cx.spec) {}

  void run(const Entry& entry, const std::string& file_family) {
    Where where{&spec_.file, entry.line, entry.key};
    if (!valid_op_name(entry.key))
      cx_.problem(where, "op name must match [A-Z][A-Za-z0-9]*(Fwd|Bwd)Op");
    MapReader fields(entry.value, where, cx_.problems);
    if (!fields.is_map()) return;
    if (auto family = fields.string("family", true)) {
      spec_.family = *family;
      if (*family != file_family)
        cx_.problem(fields.child("family"), "family '" + *family + "' disagrees with the file's family '" + file_family + "'");
    }
    if (auto status = fields.string("status", true)) {
      if (*status == "implemented") spec_.implemented = true;
      else if (*status != "spec-only")
        cx_.problem(fields.child("status"), "status must be 'implemented' or 'spec-only', got '" + *status + "'");
    }
    if (auto ref = fields.string("ref_api", true)) spec_.ref_api = *ref;
    spec_.doc = fields.string("doc", false).value_or("");
    YAML::Node signature = fields.require("signature");
    if (signature.IsDefined()) {
      load_signature(cx_, signature, fields.child("signature"));
      check_splices(fields.child("signature"));
    }
    roofline(fields);
    if (YAML::Node steps = fields.take("composition"); steps.IsDefined()) composition(steps, fields.child("composition"));
    if (YAML::Node rows = fields.take("workloads"); rows.IsDefined()) load_workloads(cx_, rows, fields.child("workloads"));
    fields.finish("family, status, ref_api, doc, signature, roofline, composition, workloads");
  }

 private:
  // One splice per shape may absorb the axes the other items leave; a shape with two
  // whose lengths no (required) input fixes cannot be checked at all.
  void check_splices(const Where& where) {
    uint32_t required = 0;
    uint32_t optional = maybe_optional_inputs(spec_);
    for (size_t i = 0; i < spec_.inputs.size(); ++i)
      if (!(optional >> i & 1)) required |= uint32_t(1) << i;
    // Every input, optional ones too, is tried with the required ones present.
    for (size_t i = 0; i < spec_.inputs.size(); ++i) {
      uint32_t present = required | uint32_t(1) << i;
      Unification u = simulate_unification(spec_, present, std::vector<size_t>(spec_.inputs.size(), 0));
      if (!(u.unsized >> i & 1)) continue;
      const TensorSpec& t = spec_.inputs[i];
      cx_.problem(where.child("inputs." + t.name, t.line),
                  "shape '" + t.shape_text + "' has two splices whose lengths no other input fixes; only one splice per shape can absorb the remaining axes");
    }
  }

  void roofline(MapReader& fields) {
    YAML::Node node = fields.take("roofline");
    Where where = fields.child("roofline");
    if (!node.IsDefined()) {
      if (spec_.implemented) cx_.problem(where, "an implemented op needs roofline.flops");
      return;
    }
    MapReader r(node, where, cx_.problems);
    RooflineSpec& meta = spec_.roofline;
    ResolveOptions formula{true};
    if (YAML::Node flops = r.take("flops"); flops.IsDefined()) {
      if (auto text = read_string(flops, r.child("flops"), cx_.problems)) {
        meta.flops = *text;
        spec_.flops = number(cx_.compile(*text, r.child("flops"), formula), r.child("flops"));
      }
    } else if (spec_.implemented) {
      cx_.problem(where, "an implemented op needs roofline.flops");
    }
    if (YAML::Node bytes = r.take("bytes"); bytes.IsDefined()) {
      if (auto text = read_string(bytes, r.child("bytes"), cx_.problems)) {
        meta.bytes = *text;
        spec_.bytes = number(cx_.compile(*text, r.child("bytes"), formula), r.child("bytes"));
      }
    }
    meta.bytes_note = r.string("bytes_note", false).value_or("");
    if (auto text = r.string("roof_key", false)) {
      if (text && *text != "cuda_core" && *text != "tensor_core")
        cx_.problem(r.child("roof_key"), "roof_key must be 'cuda_core' or 'tensor_core', got '" + *text + "'");
      else if (text) meta.roof_key = *text;
    }
    r.finish("flops, bytes, bytes_note, roof_key");
  }

  std::unique_ptr<Expr> number(std::unique_ptr<Expr> expr, const Where& where) {
    if (!expr) return expr;
    StaticType t = expr->type();
    if (t != StaticType::Int && t != StaticType::Float && t != StaticType::Bool && t != StaticType::Any) {
      cx_.problem(where, "a roofline formula must be a number, got " + std::string(type_name(t)));
      return nullptr;
    }
    return expr;
  }

  void composition(const YAML::Node& node, const Where& where) {
    if (!node.IsSequence() || node.size() == 0) {
      cx_.problem(where, "must be a non-empty list of steps");
      return;
    }
    for (size_t k = 0; k < node.size(); ++k) {
      const YAML::Node item = node[k];
      Where at{where.file, line_of(item), where.key + "[" + std::to_string(k) + "]"};
      MapReader fields(item, at, cx_.problems);
      CompositionStep step;
      CompiledStep compiled;
      step.line = at.line;
      step.op = fields.string("op", true).value_or("");
      if (YAML::Node params = fields.take("params"); params.IsDefined()) {
        MapReader map(params, fields.child("params"), cx_.problems);
        for (const Entry& e : map.entries()) {
          Where p = map.where().child(e.key, e.line);
          auto text = step_param_text(e.value, p);
          if (!text) continue;
          auto expr = cx_.compile(*text, p);
          if (expr && !expr->root_node().params_only) {
            cx_.problem(p, "step param '" + e.key + "' must read only the composite's params");
            expr.reset();
          }
          step.params.emplace_back(e.key, *text);
          compiled.params.emplace_back(e.key, std::move(expr));
        }
      }
      step.inputs = names(fields.require("inputs"), fields.child("inputs"), true);
      step.outputs = names(fields.require("outputs"), fields.child("outputs"), false);
      fields.finish("op, params, inputs, outputs");
      spec_.composition.push_back(std::move(step));
      spec_.steps.push_back(std::move(compiled));
    }
  }

  // A literal YAML value is written as an expression; a string must be one already.
  std::optional<std::string> step_param_text(const YAML::Node& node, const Where& where) {
    if (node.IsSequence()) {
      std::string text = "[";
      for (const auto& item : node) {
        auto s = read_scalar(item);
        if (!s || (s->kind != Scalar::Kind::Int && s->kind != Scalar::Kind::Float)) {
          cx_.problem(where, "list items must be numbers");
          return std::nullopt;
        }
        text += (text.size() > 1 ? ", " : "") + s->text;
      }
      return text + "]";
    }
    auto s = read_scalar(node);
    if (!s) {
      cx_.problem(where, "must be a literal or an expression over the composite's params");
      return std::nullopt;
    }
    if (s->kind == Scalar::Kind::Null) return "None";
    if (s->kind == Scalar::Kind::Bool) return s->b ? "True" : "False";
    return s->text;
  }

  std::vector<std::string> names(const YAML::Node& node, const Where& where, bool allow_omitted) {
    std::vector<std::string> out;
    if (!node.IsDefined()) return out;
    if (!node.IsSequence()) {
      cx_.problem(where, "must be a list of tensor names");
      return out;
    }
    for (const auto& item : node) {
      auto s = read_scalar(item);
      if (s && s->kind == Scalar::Kind::Null && allow_omitted) out.emplace_back();
      else if (s && s->kind == Scalar::Kind::String) out.push_back(s->text);
      else cx_.problem(where, allow_omitted ? "must list tensor names (~ for an omitted optional input)" : "must list tensor names");
    }
    return out;
  }

  SpecContext& cx_;
  CompiledSpec& spec_;
};

}  // namespace

std::unique_ptr<CompiledSpec> load_spec(const Entry& entry, const std::string& file, const std::string& file_family,
                                        std::span<const TypeFamily> families, Problems& problems) {
  auto spec = std::make_unique<CompiledSpec>();
  spec->name = entry.key;
  spec->file = file;
  spec->line = entry.line;
  SpecContext cx{problems, *spec, families, {}};
  EntryLoader(cx).run(entry, file_family);
  return spec;
}

}  // namespace tileops::manifest::detail
