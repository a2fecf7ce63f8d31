#include "expr/value_ops.hpp"

#include <tileops/params.hpp>

namespace tileops::manifest::detail {

bool truthy(const Value& v) {
  switch (v.kind) {
    case ValueKind::None: return false;
    case ValueKind::Bool: return v.b;
    case ValueKind::Int: return v.i != 0;
    case ValueKind::Float: return v.f != 0;
    case ValueKind::Str: return !v.s->empty();
    case ValueKind::DType: return true;
    default: return v.size != 0;
  }
}

bool is_number(const Value& v) {
  return v.kind == ValueKind::Bool || v.kind == ValueKind::Int || v.kind == ValueKind::Float;
}
bool is_integer(const Value& v) { return v.kind == ValueKind::Bool || v.kind == ValueKind::Int; }

int64_t as_int(const Value& v, const char* what) {
  if (v.kind == ValueKind::Int) return v.i;
  if (v.kind == ValueKind::Bool) return v.b;
  throw EvalError(std::string(what) + " must be an int, got " + kind_name(v) + " " + format_value(v));
}

double as_float(const Value& v, const char* what) {
  if (v.kind == ValueKind::Float) return v.f;
  if (v.kind == ValueKind::Int) return double(v.i);
  if (v.kind == ValueKind::Bool) return v.b;
  throw EvalError(std::string(what) + " must be a number, got " + kind_name(v) + " " + format_value(v));
}

Value element(const Value& seq, size_t i) {
  switch (seq.kind) {
    case ValueKind::Ints: return Value::integer(seq.ints[i]);
    case ValueKind::Floats: return Value::real(seq.floats[i]);
    default: return seq.items[i];
  }
}

bool equal(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) {
    if (a.kind == ValueKind::Float || b.kind == ValueKind::Float) return as_float(a, "") == as_float(b, "");
    return as_int(a, "") == as_int(b, "");
  }
  if (a.is_sequence() && b.is_sequence()) {
    if (a.size != b.size) return false;
    if (a.kind == ValueKind::Ints && b.kind == ValueKind::Ints) {
      for (uint32_t k = 0; k < a.size; ++k)
        if (a.ints[k] != b.ints[k]) return false;
      return true;
    }
    for (uint32_t k = 0; k < a.size; ++k)
      if (!equal(element(a, k), element(b, k))) return false;
    return true;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ValueKind::None: return true;
    case ValueKind::Str: return *a.s == *b.s;
    case ValueKind::DType: return a.dtype == b.dtype;
    default: return false;
  }
}

int order(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) {
    if (a.kind == ValueKind::Float || b.kind == ValueKind::Float) {
      double x = as_float(a, ""), y = as_float(b, "");
      return x < y ? -1 : x > y ? 1 : 0;
    }
    int64_t x = as_int(a, ""), y = as_int(b, "");
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.kind == ValueKind::Str && b.kind == ValueKind::Str) return a.s->compare(*b.s) < 0 ? -1 : *a.s == *b.s ? 0 : 1;
  if (a.is_sequence() && b.is_sequence()) {
    for (uint32_t k = 0; k < a.size && k < b.size; ++k)
      if (int c = order(element(a, k), element(b, k))) return c;
    return a.size < b.size ? -1 : a.size > b.size ? 1 : 0;
  }
  throw EvalError(std::string("cannot order ") + kind_name(a) + " and " + kind_name(b));
}

std::string format_value(const Value& v) {
  switch (v.kind) {
    case ValueKind::None: return "none";
    case ValueKind::Bool: return v.b ? "true" : "false";
    case ValueKind::Int: return std::to_string(v.i);
    case ValueKind::Float: return to_string(ParamValue(v.f));
    case ValueKind::Str: return "'" + *v.s + "'";
    case ValueKind::DType: return std::string(v.dtype.name());
    default: {
      std::string out = "[";
      for (uint32_t k = 0; k < v.size; ++k) out += (k ? ", " : "") + format_value(element(v, k));
      return out + "]";
    }
  }
}

const char* kind_name(const Value& v) {
  switch (v.kind) {
    case ValueKind::None: return "none";
    case ValueKind::Bool: return "bool";
    case ValueKind::Int: return "int";
    case ValueKind::Float: return "float";
    case ValueKind::Str: return "str";
    case ValueKind::DType: return "dtype";
    default: return "tuple";
  }
}

}  // namespace tileops::manifest::detail
