#include "check/materialize.hpp"

namespace tileops::manifest::detail {
namespace {

const Value& index_value(uint32_t slot, EvalContext& cx) {
  if (!cx.state->is_bound(slot)) throw EvalError(cx.names->indices[slot].name + " has no value");
  return cx.state->indices[slot];
}

}  // namespace

void materialize_shape(const BoundShape& shape, EvalContext& cx, Dims& out) {
  using Kind = BoundItem::Kind;
  out.clear();
  for (const BoundItem& it : shape.items) {
    switch (it.kind) {
      case Kind::Const: out.push_back(it.value); break;
      case Kind::ConstSplice: out.insert(out.end(), it.dims.begin(), it.dims.end()); break;
      case Kind::Dim: out.push_back(index_value(it.slot, cx).i); break;
      case Kind::Affine: out.push_back(it.value * index_value(it.slot, cx).i + it.offset); break;
      case Kind::Scalar: out.push_back(as_int(evaluate(*it.expr, cx), "an axis")); break;
      case Kind::SpliceIndex: {
        const Value& v = index_value(it.slot, cx);
        out.insert(out.end(), v.ints, v.ints + v.size);
        break;
      }
      case Kind::SpliceExpr: {
        Value v = evaluate(*it.expr, cx);
        if (!v.is_sequence()) throw EvalError("'*" + *it.text + "' is " + format_value(v) + ", not a list");
        for (uint32_t k = 0; k < v.size; ++k) out.push_back(as_int(element(v, k), "an axis"));
        break;
      }
    }
  }
  for (int64_t d : out)
    if (d < 0) throw EvalError("the shape would be " + format_shape({out.data(), out.size()}));
}

DType materialize_dtype(const BoundDType& dtype, EvalContext& cx) {
  switch (dtype.kind) {
    case BoundDType::Kind::BindIndex: return index_value(dtype.slot, cx).dtype;
    case BoundDType::Kind::Const: return dtype.value;
    case BoundDType::Kind::Expr: {
      Value v = evaluate(*dtype.expr, cx);
      if (v.kind != ValueKind::DType) throw EvalError("the dtype is " + format_value(v));
      return v.dtype;
    }
  }
  return dtype.value;
}

}  // namespace tileops::manifest::detail
