#include "generate.hpp"

#include <tileops/params.hpp>

#include <algorithm>
#include <array>
#include <sstream>

namespace tileops::manifest::codegen {
namespace {

// Param and input names that are C++ keywords, or names the generated code uses
// itself (target, inputs, outputs, op_), get a trailing '_'.
std::string identifier(const std::string& name) {
  static constexpr std::array<const char*, 36> kTaken = {
      "auto", "bool", "break", "case", "char", "class", "const", "default", "delete", "do", "double",
      "else", "enum", "explicit", "float", "for", "if", "int", "long", "namespace", "new", "operator",
      "private", "public", "return", "short", "signed", "static", "struct", "switch", "template", "this",
      "target", "inputs", "outputs", "op_"};
  for (const char* k : kTaken)
    if (name == k) return name + "_";
  return name;
}

std::string value_type(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::Int: return "int64_t";
    case ParamKind::Float: return "double";
    case ParamKind::Bool: return "bool";
    case ParamKind::Str:
    case ParamKind::Enum: return "std::string";
    case ParamKind::IntList: return "std::vector<int64_t>";
    case ParamKind::FloatList: return "std::vector<double>";
    case ParamKind::DType: return "DType";
  }
  return "ParamValue";
}

std::string cpp_type(const ParamSpec& p) { return p.nullable ? "std::optional<" + value_type(p) + ">" : value_type(p); }

std::string dtype_literal(DType d) {
  std::string name(d.name());
  return "dtypes::" + (name == "bool" ? std::string("bool_") : name);
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string default_literal(const ParamSpec& p) {
  const ParamValue& v = *p.default_value;
  if (std::holds_alternative<std::monostate>(v)) return "std::nullopt";
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (std::holds_alternative<double>(v)) {
    std::string text = to_string(v);
    return text.find_first_of(".en") == std::string::npos ? text + ".0" : text;
  }
  if (auto* s = std::get_if<std::string>(&v)) return quoted(*s);
  if (auto* d = std::get_if<DType>(&v)) return dtype_literal(*d);
  std::string list = to_string(v);  // "[1, 2]"
  return value_type(p) + "{" + list.substr(1, list.size() - 2) + "}";
}

// The ParamValue a constructor argument becomes.
std::string param_value(const ParamSpec& p) {
  std::string name = identifier(p.name);
  bool movable = p.kind == ParamKind::Str || p.kind == ParamKind::Enum || p.kind == ParamKind::IntList ||
                 p.kind == ParamKind::FloatList;
  if (p.nullable) return name + " ? ParamValue(" + (movable ? "std::move(*" + name + ")" : "*" + name) + ") : ParamValue()";
  return "ParamValue(" + (movable ? "std::move(" + name + ")" : name) + ")";
}

std::string signature_comment(const OpSpec& op) {
  auto tensors = [](std::span<const TensorSpec> list) {
    std::string out;
    for (const TensorSpec& t : list) {
      out += (out.empty() ? "" : "; ") + t.name + ": ";
      out += t.alias >= 0 ? "alias of an input" : t.shape_text + " " + t.dtype_text;
      if (t.optional.value || t.optional.is_expr()) out += ", optional";
      if (t.mutated.value || t.mutated.is_expr()) out += ", mutated";
    }
    return out;
  };
  return "//   " + tensors(op.inputs()) + "\n//   -> " + tensors(op.outputs()) + "\n";
}

void write_class(std::ostringstream& out, const OpSpec& op) {
  const auto params = op.params();
  const auto inputs = op.inputs();
  const auto outputs = op.outputs();
  // C++ defaults must trail: a param before a required one loses its default.
  size_t first_default = params.size();
  while (first_default > 0 && !params[first_default - 1].required()) --first_default;
  size_t first_optional_input = inputs.size();
  while (first_optional_input > 0 &&
         (inputs[first_optional_input - 1].optional.value || inputs[first_optional_input - 1].optional.is_expr()))
    --first_optional_input;

  out << "// " << op.name() << ": " << (op.doc().empty() ? op.ref_api() : op.doc()) << "\n";
  out << "// Follows " << op.ref_api() << (op.implemented() ? "" : " (spec-only: no kernel yet)") << ".\n";
  out << signature_comment(op);
  out << "class " << op.name() << " {\n public:\n";

  out << "  explicit " << op.name() << "(";
  for (size_t k = 0; k < params.size(); ++k) {
    out << cpp_type(params[k]) << " " << identifier(params[k].name);
    if (k >= first_default) out << " = " << default_literal(params[k]);
    out << ", ";
  }
  out << "Target target = std::nullopt)\n      : op_(\"" << op.name() << "\", Params{";
  for (size_t k = 0; k < params.size(); ++k)
    out << (k ? ", " : "") << "{\"" << params[k].name << "\", " << param_value(params[k]) << "}";
  out << "}, std::move(target)) {}\n\n";

  std::string result = outputs.size() == 1 ? "Tensor" : "std::tuple<";
  if (outputs.size() != 1) {
    for (size_t k = 0; k < outputs.size(); ++k) result += (k ? ", " : "") + std::string("Tensor");
    result += ">";
  }
  out << "  " << result << " operator()(";
  for (size_t k = 0; k < inputs.size(); ++k) {
    bool optional = k >= first_optional_input;
    out << (k ? ", " : "") << (optional ? "const std::optional<Tensor>& " : "const Tensor& ") << identifier(inputs[k].name)
        << (optional ? " = std::nullopt" : "");
  }
  out << ") {\n    const Tensor inputs[] = {";
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::string name = identifier(inputs[k].name);
    out << (k ? ", " : "") << (k >= first_optional_input ? name + ".value_or(Tensor())" : name);
  }
  out << "};\n    Tensor outputs[" << outputs.size() << "];\n    op_.call(inputs, outputs);\n    return ";
  if (outputs.size() == 1) {
    out << "std::move(outputs[0]);\n";
  } else {
    out << "{";
    for (size_t k = 0; k < outputs.size(); ++k) out << (k ? ", " : "") << "std::move(outputs[" << k << "])";
    out << "};\n";
  }
  out << "  }\n\n  Op& op() { return op_; }\n\n private:\n  Op op_;\n};\n\n";
}

std::string family_header(const Manifest& manifest, const std::string& family) {
  std::ostringstream out;
  out << "// Generated by tileops_gen_ops from the manifest's " << family << " specs: do not edit.\n"
      << "// Typed wrappers of tileops::Op, one class per op; params and inputs in manifest order.\n"
      << "#pragma once\n#include <tileops/op.hpp>\n\n#include <cstdint>\n#include <optional>\n#include <string>\n"
      << "#include <tuple>\n#include <utility>\n#include <vector>\n\n"
      << "namespace tileops::" << family << " {\n\n";
  for (const OpSpec& op : manifest.ops())
    if (op.family() == family) write_class(out, op);
  out << "}  // namespace tileops::" << family << "\n";
  return out.str();
}

}  // namespace

std::map<std::string, std::string> generate_op_headers(const Manifest& manifest) {
  std::map<std::string, std::string> files;
  std::string all = "// Generated by tileops_gen_ops: do not edit. Every family's op classes.\n#pragma once\n";
  for (const std::string& family : manifest.families()) {
    files["tileops/ops/" + family + ".hpp"] = family_header(manifest, family);
    all += "#include <tileops/ops/" + family + ".hpp>\n";
  }
  files["tileops/ops/all.hpp"] = all;
  return files;
}

}  // namespace tileops::manifest::codegen
