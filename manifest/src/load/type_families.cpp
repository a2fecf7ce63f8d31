#include "load/type_families.hpp"

#include "expr/lexer.hpp"
#include "load/param_types.hpp"
#include "load/shape_compile.hpp"
#include "load/spec_context.hpp"

namespace tileops::manifest::detail {
namespace {

void load_params(MapReader& fields, TypeFamily& family, Problems& problems) {
  MapReader params(fields.require("params"), fields.child("params"), problems);
  for (const Entry& e : params.entries()) {
    Where at = params.where().child(e.key, e.line);
    auto kind = read_string(e.value, at, problems);
    if (!kind) continue;
    TypeFamily::Param p{e.key, *kind, {}};
    if (*kind != "Bool" && *kind != "Dim" && *kind != "Shape") {
      ParamSpec as_enum;
      as_enum.type_text = *kind;
      if (parse_param_type(as_enum) || as_enum.kind != ParamKind::Enum || as_enum.nullable) {
        problems.add(*at.file, at.line, at.key, "a type family param is Bool, Dim, Shape or an enum 'a' | 'b', got '" + *kind + "'");
        continue;
      }
      p.enum_values = as_enum.enum_values;
    }
    family.params.push_back(std::move(p));
  }
}

void load_cases(MapReader& fields, TypeFamily& family, Problems& problems) {
  YAML::Node cases = fields.require("cases");
  Where where = fields.child("cases");
  if (!cases.IsDefined()) return;
  if (!cases.IsSequence() || cases.size() == 0) {
    problems.add(*where.file, where.line, where.key, "must be a non-empty list of {when, is}");
    return;
  }
  const TypeFamily::Param* match = family.match < family.params.size() ? &family.params[family.match] : nullptr;
  for (const auto& item : cases) {
    Where at = where.at(line_of(item));
    MapReader c(item, at, problems);
    TypeFamily::Case out;
    out.line = at.line;
    YAML::Node when = c.require("when");
    auto is = c.string("is", true);
    c.finish("when, is");
    if (!is || !when.IsDefined()) continue;
    out.is = *is;
    // A spec applying the family substitutes its arguments token by token: a case that
    // does not lex is reported here, at its line, and left out.
    try {
      tokenize(*is);
    } catch (const SyntaxError& error) {
      problems.add(*at.file, at.line, at.key, expression_problem(*is, error.pos, error.what()));
      continue;
    }
    if (!bracketed_items(trim(*is), 0))
      problems.add(*at.file, at.line, at.key, "case shape '" + *is + "' must be a list in brackets");
    auto s = read_scalar(when);
    if (match && match->kind == "Bool") {
      if (!s || s->kind != Scalar::Kind::Bool) {
        problems.add(*at.file, at.line, at.key, "'when' must be true or false: " + match->name + " is a Bool");
        continue;
      }
      out.when = s->b;
    } else if (match) {
      if (!s || s->kind != Scalar::Kind::String) {
        problems.add(*at.file, at.line, at.key, "'when' must be one of " + match->kind);
        continue;
      }
      std::string value = s->text;
      if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"')) value = value.substr(1, value.size() - 2);
      out.when = value;
    }
    family.cases.push_back(std::move(out));
  }
}

}  // namespace

std::vector<TypeFamily> load_type_families(const YAML::Node& root, const std::string& file, Problems& problems) {
  std::vector<TypeFamily> out;
  Where top{&file, 1, ""};
  if (root.IsNull()) return out;
  MapReader families(root, top, problems);
  for (const Entry& e : families.entries()) {
    Where at = top.child(e.key, e.line);
    MapReader fields(e.value, at, problems);
    TypeFamily family;
    family.name = e.key;
    family.file = file;
    family.line = e.line;
    load_params(fields, family, problems);
    if (auto match = fields.string("match", true)) {
      family.match = family.params.size();
      for (size_t k = 0; k < family.params.size(); ++k)
        if (family.params[k].name == *match) family.match = k;
      if (family.match == family.params.size()) {
        Where m = fields.child("match");
        problems.add(*m.file, m.line, m.key, "match names no param: '" + *match + "'");
      } else if (family.params[family.match].kind == "Dim" || family.params[family.match].kind == "Shape") {
        Where m = fields.child("match");
        problems.add(*m.file, m.line, m.key, "match must be a Bool or enum param, '" + *match + "' is a " +
                                                 family.params[family.match].kind);
        family.match = family.params.size();
      }
    }
    load_cases(fields, family, problems);
    fields.finish("params, match, cases");
    out.push_back(std::move(family));
  }
  return out;
}

}  // namespace tileops::manifest::detail
