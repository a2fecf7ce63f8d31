#include "load/signature_loader.hpp"

#include "expr/lexer.hpp"
#include "expr/parser.hpp"
#include "load/param_types.hpp"
#include "load/shape_compile.hpp"

#include <regex>

namespace tileops::manifest::detail {
namespace {

bool valid_identifier(const std::string& name) {
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(name, kIdentifier);
}

StaticType param_static_type(ParamKind kind) {
  switch (kind) {
    case ParamKind::Int: return StaticType::Int;
    case ParamKind::Float: return StaticType::Float;
    case ParamKind::Bool: return StaticType::Bool;
    case ParamKind::Str:
    case ParamKind::Enum: return StaticType::Str;
    case ParamKind::IntList: return StaticType::Ints;
    case ParamKind::FloatList: return StaticType::Floats;
    case ParamKind::DType: return StaticType::DType;
  }
  return StaticType::Any;
}

const char* kind_word(RefKind kind) {
  switch (kind) {
    case RefKind::Param: return "a param";
    case RefKind::Index: return "an index";
    case RefKind::Let: return "a let";
    case RefKind::Input: return "an input";
    case RefKind::Output: return "an output";
  }
  return "a name";
}

class SignatureLoader {
 public:
  SignatureLoader(SpecContext& cx) : cx_(cx), spec_(cx.spec) {}

  void run(const YAML::Node& node, const Where& where) {
    MapReader sig(node, where, cx_.problems);
    forall(sig.take("forall"), sig.child("forall"));
    params(sig.take("params"), sig.child("params"));
    YAML::Node inputs = sig.require("inputs"), outputs = sig.require("outputs");
    tensors(inputs, sig.child("inputs"), true);
    tensors(outputs, sig.child("outputs"), false);
    lets(sig.take("let"), sig.child("let"));
    compile_tensors(true);
    compile_tensors(false);
    check_aliases(sig.child("outputs"));
    rules(sig.take("shape_rules"), sig.child("shape_rules"));
    combos(sig.take("dtype_combos"), sig.child("dtype_combos"));
    sig.finish("forall, params, inputs, outputs, let, shape_rules, dtype_combos");
  }

 private:
  void declare(const std::string& name, const Where& where, Binding binding) {
    if (!valid_identifier(name)) {
      cx_.problem(where, "'" + name + "' is not a valid name");
      return;
    }
    if (DType::parse(name)) {
      cx_.problem(where, "'" + name + "' is a dtype name and cannot name anything else");
      return;
    }
    if (const Binding* taken = cx_.scope.find(name)) {
      cx_.problem(where, "'" + name + "' is already " + kind_word(taken->kind));
      return;
    }
    cx_.scope.add(name, binding);
  }

  void forall(const YAML::Node& node, const Where& where) {
    if (!node.IsDefined()) return;
    MapReader map(node, where, cx_.problems);
    for (const Entry& e : map.entries()) {
      Where at = where.child(e.key, e.line);
      auto text = read_string(e.value, at, cx_.problems);
      if (!text) continue;
      IndexSpec index;
      index.name = e.key;
      StaticType type = StaticType::Int;
      if (*text == "Dim") {
        index.kind = IndexKind::Dim;
      } else if (*text == "Shape") {
        index.kind = IndexKind::Shape;
        type = StaticType::Ints;
      } else if (text->rfind("DType", 0) == 0) {
        index.kind = IndexKind::DType;
        type = StaticType::DType;
        ParamSpec as_param;
        as_param.type_text = *text;
        if (auto error = parse_param_type(as_param)) {
          cx_.problem(at, *error);
          continue;
        }
        index.dtypes = as_param.dtype_values;
      } else {
        cx_.problem(at, "index kind must be Dim, Shape or DType[a | b], got '" + *text + "'");
        continue;
      }
      if (spec_.indices.size() == kMaxIndices) {
        cx_.problem(at, "more than " + std::to_string(kMaxIndices) + " indices");
        continue;
      }
      declare(e.key, at, {RefKind::Index, uint32_t(spec_.indices.size()), type});
      spec_.indices.push_back(std::move(index));
    }
  }

  void params(const YAML::Node& node, const Where& where) {
    if (!node.IsDefined()) return;
    MapReader map(node, where, cx_.problems);
    for (const Entry& e : map.entries()) {
      Where at = where.child(e.key, e.line);
      MapReader fields(e.value, at, cx_.problems);
      ParamSpec p;
      p.name = e.key;
      p.line = e.line;
      if (auto type = fields.string("type", true)) {
        p.type_text = *type;
        if (auto error = parse_param_type(p)) {
          cx_.problem(fields.child("type"), *error);
          continue;
        }
      } else {
        continue;
      }
      if (YAML::Node d = fields.take("default"); d.IsDefined()) {
        std::string error;
        auto raw = yaml_to_param_value(d, error);
        auto settled = raw ? coerce_param(p, *raw, error) : std::nullopt;
        if (settled) p.default_value = std::move(*settled);
        else cx_.problem(fields.child("default"), "default " + error);
      }
      if (YAML::Node kw = fields.take("kw_only"); kw.IsDefined())
        p.kw_only = read_bool(kw, fields.child("kw_only"), cx_.problems).value_or(false);
      fields.finish("type, default, kw_only");
      declare(e.key, at, {RefKind::Param, uint32_t(spec_.params.size()), param_static_type(p.kind), p.nullable});
      spec_.params.push_back(std::move(p));
    }
  }

  // Metadata and names first: lets may read tensors, and shapes may read lets.
  void tensors(const YAML::Node& node, const Where& where, bool inputs) {
    if (!node.IsDefined()) return;
    MapReader map(node, where, cx_.problems);
    auto& list = inputs ? spec_.inputs : spec_.outputs;
    if (map.is_map() && map.entries().empty()) cx_.problem(where, inputs ? "an op needs inputs" : "an op needs outputs");
    for (const Entry& e : map.entries()) {
      Where at = where.child(e.key, e.line);
      if (list.size() == kMaxTensors) {
        cx_.problem(at, "more than " + std::to_string(kMaxTensors) + (inputs ? " inputs" : " outputs"));
        break;
      }
      TensorSpec t;
      t.name = e.key;
      t.line = e.line;
      auto& fields = readers_.emplace_back(std::make_unique<MapReader>(e.value, at, cx_.problems));
      if (inputs || !fields->take("alias").IsDefined()) {
        if (auto s = fields->string("dtype", true)) t.dtype_text = *s;
        if (auto s = fields->string("shape", true)) t.shape_text = *s;
      }
      if (!inputs) {
        if (YAML::Node a = fields->take("alias"); a.IsDefined()) alias(*fields, a, t);
        if (auto s = fields->string("buffer", false)) {
          if (*s == "out") t.buffer_out = true;
          else cx_.problem(fields->child("buffer"), "buffer must be 'out', got '" + *s + "'");
        }
      }
      declare(e.key, at, {inputs ? RefKind::Input : RefKind::Output, uint32_t(list.size()), StaticType::Tensor});
      list.push_back(std::move(t));
      (inputs ? input_readers_ : output_readers_).push_back(fields.get());
    }
  }

  void alias(MapReader& fields, const YAML::Node& node, TensorSpec& t) {
    auto name = read_string(node, fields.child("alias"), cx_.problems);
    if (!name) return;
    for (size_t k = 0; k < spec_.inputs.size(); ++k) {
      if (spec_.inputs[k].name != *name) continue;
      t.alias = int(k);
      t.dtype_text = spec_.inputs[k].dtype_text;
      t.shape_text = spec_.inputs[k].shape_text;
      for (const char* field : {"dtype", "shape"})
        if (fields.take(field).IsDefined())
          cx_.problem(fields.child(field), "an alias output takes its " + std::string(field) + " from input '" + *name + "'");
      return;
    }
    cx_.problem(fields.child("alias"), "alias names no input: '" + *name + "'");
  }

  void lets(const YAML::Node& node, const Where& where) {
    if (!node.IsDefined()) return;
    MapReader map(node, where, cx_.problems);
    const auto& entries = map.entries();
    for (size_t k = 0; k < entries.size(); ++k) {
      const Entry& e = entries[k];
      Where at = where.child(e.key, e.line);
      auto text = read_string(e.value, at, cx_.problems);
      spec_.let_texts.emplace_back(e.key, text.value_or(""));
      spec_.let_names.push_back(e.key);
      uint32_t slot = uint32_t(spec_.lets.size());
      spec_.lets.emplace_back();
      if (!text) continue;
      if (slot == kMaxLets) {
        cx_.problem(at, "more than " + std::to_string(kMaxLets) + " lets");
        continue;
      }
      if (auto later = later_let_used(*text, entries, k)) {
        cx_.problem(at, "let '" + e.key + "' may only use earlier lets ('" + *later + "' is " +
                            (*later == e.key ? "itself" : "defined after it") + ")");
        continue;
      }
      auto expr = cx_.compile(*text, at);
      if (!expr) continue;
      Binding b{RefKind::Let, slot, expr->type()};
      b.params_only = expr->root_node().params_only;
      b.deps = expr->deps;
      declare(e.key, at, b);
      spec_.lets[slot] = std::move(expr);
    }
  }

  // The first let at position k or later that `text` names (lets are ordered, so this
  // is what a cycle looks like).
  static std::optional<std::string> later_let_used(const std::string& text, const std::vector<Entry>& lets, size_t k) {
    Expr parsed;
    try {
      parsed = parse_expression(text);
    } catch (const SyntaxError&) {
      return std::nullopt;  // compile() reports it
    }
    for (const std::string& name : parsed.names)
      for (size_t later = k; later < lets.size(); ++later)
        if (lets[later].key == name) return name;
    return std::nullopt;
  }

  void compile_tensors(bool inputs) {
    auto& metas = inputs ? spec_.inputs : spec_.outputs;
    auto& readers = inputs ? input_readers_ : output_readers_;
    auto& templates = inputs ? spec_.input_templates : spec_.output_templates;
    templates.resize(metas.size());
    for (size_t k = 0; k < metas.size(); ++k) {
      TensorSpec& t = metas[k];
      MapReader& fields = *readers[k];
      CompiledTensor& c = templates[k];
      if (!t.shape_text.empty()) compile_shape(cx_, t.shape_text, fields.child("shape"), c);
      if (!t.dtype_text.empty()) compile_dtype(cx_, t.dtype_text, fields.child("dtype"), c.dtype);
      if (inputs) {
        flag(fields, "optional", t.optional, c.optional);
        flag(fields, "mutated", t.mutated, c.mutated);
        flag(fields, "write_only", t.write_only, c.write_only);
        if (YAML::Node v = fields.take("values"); v.IsDefined()) values(fields.child("values"), v, t, c);
      }
      flag(fields, "contiguous", t.contiguous, c.contiguous);
      if (auto s = fields.string("device", false)) {
        if (*s == "cpu") t.host = true;
        else cx_.problem(fields.child("device"), "device must be 'cpu' (a host-side tensor), got '" + *s + "'");
      }
      fields.finish(inputs ? "dtype, shape, optional, mutated, write_only, contiguous, device, values"
                           : "dtype, shape, buffer, alias, contiguous, device");
    }
  }

  // An alias output is a mutated input handed back: that input must always be there.
  void check_aliases(const Where& where) {
    for (const TensorSpec& out : spec_.outputs) {
      if (out.alias < 0) continue;
      const TensorSpec& in = spec_.inputs[size_t(out.alias)];
      Where at = where.child(out.name, out.line);
      if (in.optional.value || in.optional.is_expr())
        cx_.problem(at, "alias '" + in.name + "' is an optional input; an alias output needs a required one");
      if (!in.mutated.value && !in.mutated.is_expr())
        cx_.problem(at, "alias '" + in.name + "' is not mutated; an alias output returns a mutated input");
    }
  }

  void flag(MapReader& fields, const char* name, TensorFlag& meta, CompiledFlag& compiled) {
    YAML::Node node = fields.take(name);
    if (!node.IsDefined()) return;
    Where at = fields.child(name);
    auto s = read_flag(node, at, cx_.problems);
    if (!s) return;
    if (s->kind == Scalar::Kind::Bool) {
      meta.value = compiled.value = s->b;
      return;
    }
    meta.expr = s->text;
    compiled.expr = cx_.compile(s->text, at);
    if (compiled.expr && !compiled.expr->root_node().params_only) {
      cx_.problem(at, std::string(name) + " '" + s->text + "' must read only params");
      compiled.expr.reset();
    }
  }

  void values(const Where& where, const YAML::Node& node, TensorSpec& t, CompiledTensor& c) {
    MapReader range(node, where, cx_.problems);
    auto low = range.string("low", true);
    auto high = range.string("high", true);
    range.finish("low, high");
    if (!low || !high) return;
    t.values = ValuesSpec{*low, *high};
    c.values_low = cx_.compile(*low, range.child("low"));
    c.values_high = cx_.compile(*high, range.child("high"));
  }

  void rules(const YAML::Node& node, const Where& where) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      cx_.problem(where, "must be a list of expressions");
      return;
    }
    for (size_t k = 0; k < node.size(); ++k) {
      const YAML::Node item = node[k];
      Where at{where.file, line_of(item), where.key + "[" + std::to_string(k) + "]"};
      auto text = read_string(item, at, cx_.problems);
      if (!text) continue;
      spec_.rule_texts.push_back(*text);
      auto expr = cx_.compile(*text, at);
      if (!expr) continue;
      StaticType t = expr->type();
      if (t != StaticType::Bool && t != StaticType::Any) {
        cx_.problem(at, "shape rule '" + *text + "' must be a condition, got " + type_name(t));
        continue;
      }
      spec_.rules.push_back({*text, std::move(expr), at.line});
    }
  }

  void combos(const YAML::Node& node, const Where& where) {
    if (!node.IsDefined()) return;
    spec_.combos.line = where.line;
    if (!node.IsSequence() || node.size() == 0) {
      cx_.problem(where, "must be a non-empty list of mappings from DType index to dtype");
      return;
    }
    for (const auto& item : node) {
      Where at = where.at(line_of(item));
      MapReader row(item, at, cx_.problems);
      std::vector<uint32_t> slots;
      std::vector<DType> dtypes;
      for (const Entry& e : row.entries()) {
        const Binding* b = cx_.scope.find(e.key);
        if (!b || b->kind != RefKind::Index || spec_.indices[b->slot].kind != IndexKind::DType) {
          cx_.problem(at, "'" + e.key + "' is not a DType index");
          continue;
        }
        auto name = read_string(e.value, at, cx_.problems);
        auto dtype = name ? DType::parse(*name) : std::nullopt;
        if (!dtype) {
          if (name) cx_.problem(at, "unknown dtype '" + *name + "'");
          continue;
        }
        slots.push_back(b->slot);
        dtypes.push_back(*dtype);
      }
      if (spec_.combos.rows.empty()) spec_.combos.slots = slots;
      else if (slots != spec_.combos.slots) cx_.problem(at, "every dtype_combos row must name the same indices in the same order");
      spec_.combos.rows.push_back(std::move(dtypes));
    }
  }

  SpecContext& cx_;
  CompiledSpec& spec_;
  std::vector<std::unique_ptr<MapReader>> readers_;
  std::vector<MapReader*> input_readers_, output_readers_;
};

}  // namespace

void load_signature(SpecContext& cx, const YAML::Node& node, const Where& where) {
  SignatureLoader(cx).run(node, where);
}

}  // namespace tileops::manifest::detail
