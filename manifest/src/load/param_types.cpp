#include "load/param_types.hpp"

#include "load/yaml_reader.hpp"

#include <algorithm>

namespace tileops::manifest::detail {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_alternatives(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t k = 0; k < text.size(); ++k) {
    char c = text[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      out.push_back(trim(std::string_view(text).substr(start, k - start)));
      start = k + 1;
    }
  }
  out.push_back(trim(std::string_view(text).substr(start)));
  return out;
}

namespace {

bool quoted(const std::string& s) {
  return s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front();
}

// "DType[float16 | bfloat16]" -> the dtypes; "DType" -> empty (any).
std::optional<std::string> parse_dtype_list(const std::string& text, std::vector<DType>& out) {
  if (text == "DType" || text == "dtype") return std::nullopt;
  if (text.rfind("DType[", 0) != 0 || text.back() != ']') return "expected DType[a | b]";
  for (const std::string& name : split_alternatives(text.substr(6, text.size() - 7))) {
    auto d = DType::parse(name);
    if (!d) return "unknown dtype '" + name + "'";
    out.push_back(*d);
  }
  return std::nullopt;
}

std::string join_quoted(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "'" : ", '") + s + "'";
  return out;
}

std::string describe(const ParamValue& v) { return std::string(kind_name(v)) + " " + to_string(v); }

}  // namespace

std::optional<std::string> parse_param_type(ParamSpec& param) {
  std::optional<ParamKind> kind;
  auto set_kind = [&](ParamKind k) -> std::optional<std::string> {
    if (kind && *kind != k) return "a param type is one kind (optionally '| None'): '" + param.type_text + "'";
    kind = k;
    return std::nullopt;
  };
  for (const std::string& alt : split_alternatives(param.type_text)) {
    std::optional<std::string> error;
    if (alt == "None") param.nullable = true;
    else if (alt == "int") error = set_kind(ParamKind::Int);
    else if (alt == "float") error = set_kind(ParamKind::Float);
    else if (alt == "bool") error = set_kind(ParamKind::Bool);
    else if (alt == "str") error = set_kind(ParamKind::Str);
    else if (alt == "list[int]" || alt == "tuple[int, ...]") error = set_kind(ParamKind::IntList);
    else if (alt == "list[float]" || alt == "tuple[float, ...]") error = set_kind(ParamKind::FloatList);
    else if (quoted(alt)) {
      error = set_kind(ParamKind::Enum);
      param.enum_values.push_back(alt.substr(1, alt.size() - 2));
    } else if (alt.rfind("DType", 0) == 0 || alt == "dtype") {
      error = set_kind(ParamKind::DType);
      if (!error) error = parse_dtype_list(alt, param.dtype_values);
    } else {
      error = "unknown param type '" + alt + "' (int, float, bool, str, 'a' | 'b', list[int], list[float], DType[...], X | None)";
    }
    if (error) return error;
  }
  if (!kind) return "a param type needs a kind besides None";
  param.kind = *kind;
  return std::nullopt;
}

std::optional<ParamValue> coerce_param(const ParamSpec& p, const ParamValue& v, std::string& error) {
  auto fail = [&]() -> std::optional<ParamValue> {
    if (p.kind == ParamKind::Enum && std::holds_alternative<std::string>(v))
      error = "must be one of " + join_quoted(p.enum_values) + ", got " + to_string(v);
    else if (p.kind == ParamKind::DType && std::holds_alternative<DType>(v))
      error = "must be " + p.type_text + ", got " + to_string(v);
    else
      error = "must be " + p.type_text + ", got " + describe(v);
    return std::nullopt;
  };
  if (std::holds_alternative<std::monostate>(v)) return p.nullable ? std::optional<ParamValue>(v) : fail();
  switch (p.kind) {
    case ParamKind::Int:
      if (std::holds_alternative<int64_t>(v)) return v;
      return fail();
    case ParamKind::Float:
      if (auto* i = std::get_if<int64_t>(&v)) return ParamValue(double(*i));
      if (std::holds_alternative<double>(v)) return v;
      return fail();
    case ParamKind::Bool:
      if (std::holds_alternative<bool>(v)) return v;
      return fail();
    case ParamKind::Str:
      if (std::holds_alternative<std::string>(v)) return v;
      return fail();
    case ParamKind::Enum: {
      auto* s = std::get_if<std::string>(&v);
      if (s && std::find(p.enum_values.begin(), p.enum_values.end(), *s) != p.enum_values.end()) return v;
      return fail();
    }
    case ParamKind::IntList:
      if (std::holds_alternative<std::vector<int64_t>>(v)) return v;
      if (auto* f = std::get_if<std::vector<double>>(&v); f && f->empty()) return ParamValue(std::vector<int64_t>{});
      return fail();
    case ParamKind::FloatList:
      if (std::holds_alternative<std::vector<double>>(v)) return v;
      if (auto* i = std::get_if<std::vector<int64_t>>(&v)) return ParamValue(std::vector<double>(i->begin(), i->end()));
      return fail();
    case ParamKind::DType: {
      std::optional<DType> d;
      if (auto* x = std::get_if<DType>(&v)) d = *x;
      if (auto* s = std::get_if<std::string>(&v)) d = DType::parse(*s);
      if (!d) return fail();
      if (!p.dtype_values.empty() &&
          std::find(p.dtype_values.begin(), p.dtype_values.end(), *d) == p.dtype_values.end()) {
        error = "must be " + p.type_text + ", got " + std::string(d->name());
        return std::nullopt;
      }
      return ParamValue(*d);
    }
  }
  return fail();
}

std::optional<ParamValue> yaml_to_param_value(const YAML::Node& node, std::string& error) {
  if (node.IsSequence()) {
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool all_ints = true;
    for (const auto& item : node) {
      auto s = read_scalar(item);
      if (!s || (s->kind != Scalar::Kind::Int && s->kind != Scalar::Kind::Float)) {
        error = "list items must be numbers";
        return std::nullopt;
      }
      all_ints = all_ints && s->kind == Scalar::Kind::Int;
      ints.push_back(s->i);
      floats.push_back(s->kind == Scalar::Kind::Int ? double(s->i) : s->f);
    }
    if (all_ints) return ParamValue(std::move(ints));
    return ParamValue(std::move(floats));
  }
  auto s = read_scalar(node);
  if (!s) {
    error = "must be a scalar or a list";
    return std::nullopt;
  }
  switch (s->kind) {
    case Scalar::Kind::Null: return ParamValue(std::monostate{});
    case Scalar::Kind::Bool: return ParamValue(s->b);
    case Scalar::Kind::Int: return ParamValue(s->i);
    case Scalar::Kind::Float: return ParamValue(s->f);
    case Scalar::Kind::String: return ParamValue(s->text);
  }
  return std::nullopt;
}

Value view_of(const ParamValue& value) {
  struct Visitor {
    Value operator()(std::monostate) const { return Value::none(); }
    Value operator()(bool b) const { return Value::boolean(b); }
    Value operator()(int64_t i) const { return Value::integer(i); }
    Value operator()(double f) const { return Value::real(f); }
    Value operator()(const std::string& s) const { return Value::str(&s); }
    Value operator()(const std::vector<int64_t>& l) const { return Value::int_list(l); }
    Value operator()(const std::vector<double>& l) const { return Value::float_list(l); }
    Value operator()(DType d) const { return Value::dtype_of(d); }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace tileops::manifest::detail
