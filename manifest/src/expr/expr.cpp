#include "expr/expr.hpp"

namespace tileops::manifest::detail {

Value Expr::own(const Value& v) {
  switch (v.kind) {
    case ValueKind::Str: return own_string(*v.s);
    case ValueKind::Ints: return own_ints({v.ints, v.ints + v.size});
    case ValueKind::Floats: return own_floats({v.floats, v.floats + v.size});
    case ValueKind::Tuple: {
      std::vector<Value> items;
      for (const Value& item : v.tuple_span()) items.push_back(own(item));
      return own_tuple(std::move(items));
    }
    default: return v;
  }
}

const char* type_name(StaticType t) {
  switch (t) {
    case StaticType::Any: return "any";
    case StaticType::None: return "None";
    case StaticType::Bool: return "bool";
    case StaticType::Int: return "int";
    case StaticType::Float: return "float";
    case StaticType::Str: return "str";
    case StaticType::DType: return "dtype";
    case StaticType::Ints: return "tuple of ints";
    case StaticType::Floats: return "tuple of floats";
    case StaticType::Seq: return "tuple";
    case StaticType::Tensor: return "tensor";
  }
  return "?";
}

const char* primitive_name(Primitive p) {
  static constexpr const char* kNames[] = {
      "len",           "prod",       "sum",   "max",   "min",     "all",       "ceil_div",
      "broadcast",     "reduced",    "normalize_axis", "valid_axes", "promote_int_to_float",
      "bytes",         "present"};
  return kNames[size_t(p)];
}

const char* compare_op_text(CompareOp op) {
  static constexpr const char* kText[] = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"};
  return kText[size_t(op)];
}

const char* binary_op_text(BinaryOp op) {
  static constexpr const char* kText[] = {"+", "-", "*", "/", "//", "%"};
  return kText[size_t(op)];
}

}  // namespace tileops::manifest::detail
