// Static checks of signatures and type families: names, inference plans.
#include "compiled_spec.hpp"
#include "expr/parser.hpp"
#include "expr/lexer.hpp"
#include "expr/resolve.hpp"
#include "validate/checks.hpp"
#include "validate/inference.hpp"

#include <algorithm>
#include <bit>

namespace tileops::manifest::detail {

void check_type_families(const Manifest& manifest, Diagnostics& out) {
  for (const TypeFamily& family : manifest.type_families()) {
    if (family.match >= family.params.size()) continue;  // the loader reported it
    const TypeFamily::Param& match = family.params[family.match];
    std::vector<ParamValue> domain;
    if (match.kind == "Bool") domain = {ParamValue(false), ParamValue(true)};
    for (const auto& v : match.enum_values) domain.emplace_back(v);
    for (const ParamValue& value : domain) {
      auto n = std::count_if(family.cases.begin(), family.cases.end(), [&](const auto& c) { return c.when == value; });
      if (n == 0)
        out.add(nullptr, "type-family", family.file, family.line,
                family.name + ": no case for " + match.name + " = " + to_string(value) + " (cases must be exhaustive)");
      if (n > 1)
        out.add(nullptr, "type-family", family.file, family.line,
                family.name + ": several cases for " + match.name + " = " + to_string(value) + " (cases must be disjoint)");
    }
    Scope scope;
    for (uint32_t k = 0; k < family.params.size(); ++k) {
      const auto& p = family.params[k];
      StaticType t = p.kind == "Dim" ? StaticType::Int : p.kind == "Shape" ? StaticType::Ints
                     : p.kind == "Bool" ? StaticType::Bool : StaticType::Str;
      scope.add(p.name, Binding(p.kind == "Dim" || p.kind == "Shape" ? RefKind::Index : RefKind::Param, k, t));
    }
    for (const TypeFamily::Case& c : family.cases) {
      if (std::find(domain.begin(), domain.end(), c.when) == domain.end())
        out.add(nullptr, "type-family", family.file, c.line,
                family.name + ": " + to_string(c.when) + " is not a value of " + match.name);
      try {
        Expr e = parse_expression(c.is);
        for (const ExprProblem& p : resolve(e, scope))
          out.add(nullptr, "type-family", family.file, c.line, family.name + ": in '" + c.is + "': " + p.message);
      } catch (const SyntaxError& error) {
        out.add(nullptr, "type-family", family.file, c.line, family.name + ": in '" + c.is + "': " + error.what());
      }
    }
  }
}

void check_names(const OpSpec& op, Diagnostics& out) {
  const CompiledSpec& spec = op.compiled();
  uint32_t optional = maybe_optional_inputs(spec);
  for (size_t i = 0; i + 1 < spec.inputs.size(); ++i)
    if ((optional >> i & 1) && !(optional >> (i + 1) & 1))
      out.add(&op, "names", op.file(), spec.inputs[i + 1].line,
              "input '" + spec.inputs[i + 1].name + "' is required but follows optional input '" + spec.inputs[i].name +
                  "' (optional inputs trail)");
  uint64_t used = 0;
  for (const auto* list : {&spec.input_templates, &spec.output_templates}) {
    for (const CompiledTensor& t : *list) {
      used |= indices_needed(t.dtype);
      if (!t.family) used |= indices_needed(t.shape);
      else
        for (const auto& c : t.family->cases) used |= indices_needed(c.second);
    }
  }
  for (size_t k = 0; k < spec.indices.size(); ++k)
    if (!(used >> k & 1))
      out.add(op, "names", "index '" + spec.indices[k].name + "' is declared in forall but no tensor uses it");
}

namespace {

std::string presence_text(const CompiledSpec& spec, uint32_t optional, uint32_t present) {
  std::string omitted;
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    if ((optional >> i & 1) && !(present >> i & 1)) omitted += (omitted.empty() ? "" : ", ") + spec.inputs[i].name;
  return omitted.empty() ? "with every input present" : "without " + omitted;
}

// Family case choices: one counter per tensor with a family application.
struct CaseChoices {
  explicit CaseChoices(const CompiledSpec& spec) {
    for (const auto& t : spec.input_templates) radix_in.push_back(t.family ? t.family->cases.size() : 1);
    for (const auto& t : spec.output_templates) radix_out.push_back(t.family ? t.family->cases.size() : 1);
    in.assign(radix_in.size(), 0);
    out.assign(radix_out.size(), 0);
  }
  bool next() {
    for (size_t k = 0; k < in.size(); ++k)
      if (++in[k] < radix_in[k]) return true;
      else in[k] = 0;
    for (size_t k = 0; k < out.size(); ++k)
      if (++out[k] < radix_out[k]) return true;
      else out[k] = 0;
    return false;
  }
  std::vector<size_t> radix_in, radix_out, in, out;
};

}  // namespace

void check_inference(const OpSpec& op, Diagnostics& out) {
  const CompiledSpec& spec = op.compiled();
  uint32_t optional = maybe_optional_inputs(spec);
  uint32_t all = spec.inputs.empty() ? 0 : uint32_t((uint64_t(1) << spec.inputs.size()) - 1);
  std::vector<std::string> reported;  // one diagnostic per problem, not per combination
  auto report = [&](const std::string& message) {
    if (std::find(reported.begin(), reported.end(), message) != reported.end()) return;
    reported.push_back(message);
    out.add(op, "inference", message);
  };
  if (std::popcount(optional) > 10) {
    report("more than 10 optional inputs: inference plans not enumerated");
    return;
  }
  // Every subset of the optional inputs, by walking the subsets of `optional`.
  uint32_t omitted = 0;
  do {
    uint32_t present = all & ~omitted;
    std::string when = presence_text(spec, optional, present);
    CaseChoices cases(spec);
    do {
      Unification u = simulate_unification(spec, present, cases.in);
      for (uint32_t rest = u.unresolved; rest; rest &= rest - 1) {
        size_t i = size_t(std::countr_zero(rest));
        uint64_t need = indices_needed(shape_template(spec.input_templates[i], cases.in[i])) & ~u.bound;
        report("input '" + spec.inputs[i].name + "' cannot be checked " + when + ": no input fixes " +
               (need ? index_names(spec, need) : "the lengths of its splices"));
      }
      for (size_t j = 0; j < spec.outputs.size(); ++j) {
        if (spec.outputs[j].alias >= 0) continue;
        const CompiledTensor& t = spec.output_templates[j];
        uint64_t need = (indices_needed(shape_template(t, cases.out[j])) | indices_needed(t.dtype)) & ~u.bound;
        if (need)
          report("output '" + spec.outputs[j].name + "' cannot be inferred " + when + ": no input fixes " +
                 index_names(spec, need));
      }
      for (const CompiledRule& rule : spec.rules)
        if (uint64_t need = rule.expr->deps.indices & ~u.bound)
          report("shape rule '" + rule.text + "' reads " + index_names(spec, need) + ", which no input fixes " + when);
      for (const auto& [what, expr] : {std::pair{"flops", spec.flops.get()}, std::pair{"bytes", spec.bytes.get()}})
        if (uint64_t need = expr ? expr->deps.indices & ~u.bound : 0)
          report(std::string("roofline ") + what + " reads " + index_names(spec, need) + ", which no input fixes " + when);
    } while (cases.next());
    omitted = (omitted - optional) & optional;  // next subset
  } while (omitted != 0);
}

}  // namespace tileops::manifest::detail
