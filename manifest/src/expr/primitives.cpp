#include "expr/primitives.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace tileops::manifest::detail {
namespace {

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw EvalError("integer overflow");
  return r;
}
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw EvalError("integer overflow");
  return r;
}

const Value& sequence_arg(std::span<const Value> args, size_t k, const char* fn) {
  if (!args[k].is_sequence())
    throw EvalError(std::string(fn) + "() needs a tuple, got " + kind_name(args[k]) + " " + format_value(args[k]));
  return args[k];
}

std::span<const int64_t> shape_arg(const Value& v, const char* fn, ScratchArena& arena) {
  if (v.kind == ValueKind::Ints) return v.int_span();
  if (v.kind == ValueKind::Tuple) {
    auto out = arena.allocate<int64_t>(v.size);
    for (uint32_t k = 0; k < v.size; ++k) out[k] = as_int(v.items[k], "a shape's axis");
    return out;
  }
  throw EvalError(std::string(fn) + "() needs a shape, got " + kind_name(v) + " " + format_value(v));
}

Value fold_numbers(const Value& seq, bool product) {
  bool integral = true;
  for (uint32_t k = 0; k < seq.size; ++k) integral = integral && is_integer(element(seq, k));
  if (integral) {
    int64_t acc = product ? 1 : 0;
    for (uint32_t k = 0; k < seq.size; ++k) {
      int64_t x = as_int(element(seq, k), "an element");
      acc = product ? checked_mul(acc, x) : checked_add(acc, x);
    }
    return Value::integer(acc);
  }
  double acc = product ? 1 : 0;
  for (uint32_t k = 0; k < seq.size; ++k) {
    double x = as_float(element(seq, k), "an element");
    acc = product ? acc * x : acc + x;
  }
  // As for the arithmetic operators: an integer fold that overflows is an error, so is a
  // float one that leaves the finite numbers.
  if (!std::isfinite(acc)) throw EvalError("the result is not a finite number");
  return Value::real(acc);
}

Value extreme(std::span<const Value> args, bool want_max, const char* fn) {
  Value best;
  size_t count = 0;
  auto consider = [&](const Value& v) {
    if (!is_number(v)) throw EvalError(std::string(fn) + "() needs numbers, got " + kind_name(v));
    if (count++ == 0 || (want_max ? order(v, best) > 0 : order(v, best) < 0)) best = v;
  };
  if (args.size() == 1) {
    const Value& seq = sequence_arg(args, 0, fn);
    for (uint32_t k = 0; k < seq.size; ++k) consider(element(seq, k));
    if (count == 0) throw EvalError(std::string(fn) + "() of an empty tuple");
  } else {
    for (const Value& v : args) consider(v);
  }
  return best;
}

// Axis `a` of a rank-`ndim` tensor, made non-negative; false when out of range.
// Rank 0 accepts -1 and 0 (as torch does) and gives 0.
bool normalized(int64_t a, int64_t ndim, int64_t& out) {
  int64_t n = std::max<int64_t>(ndim, 1);
  if (a < -n || a >= n) return false;
  out = a < 0 ? a + n : a;
  return true;
}

std::string range_text(int64_t ndim) {
  if (ndim == 0) return "a rank-0 tensor (axis -1 or 0)";
  return std::to_string(ndim) + " dimensions (axis in [" + std::to_string(-ndim) + ", " + std::to_string(ndim) + "))";
}

// The axes `dim` names (an int, a tuple of ints, or None = all; an empty tuple also
// means all, as torch.sum and torch.amax read it), normalised; throws when one is out
// of range or repeats.
int axes_of(const Value& dim, int64_t ndim, std::array<bool, 64>& chosen) {
  chosen.fill(false);
  if (ndim > 64) throw EvalError("more than 64 dimensions");
  if (dim.is_none() || (dim.is_sequence() && dim.size == 0)) {
    for (int64_t k = 0; k < ndim; ++k) chosen[size_t(k)] = true;
    return int(ndim);
  }
  int count = 0;
  auto take = [&](const Value& v) {
    int64_t a = as_int(v, "an axis"), n;
    if (!normalized(a, ndim, n)) throw EvalError("axis " + std::to_string(a) + " is out of range for " + range_text(ndim));
    if (chosen[size_t(n)]) throw EvalError("axis " + std::to_string(a) + " appears twice in " + format_value(dim));
    chosen[size_t(n)] = true;
    ++count;
  };
  if (dim.is_sequence()) {
    for (uint32_t k = 0; k < dim.size; ++k) take(element(dim, k));
  } else {
    take(dim);
  }
  return count;
}

Value reduced(std::span<const Value> args, ScratchArena& arena) {
  auto shape = shape_arg(args[0], "reduced", arena);
  bool keepdim = args.size() > 2 && truthy(args[2]);
  std::array<bool, 64> chosen;
  axes_of(args[1], int64_t(shape.size()), chosen);
  auto out = arena.allocate<int64_t>(shape.size());
  size_t n = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (!chosen[k]) out[n++] = shape[k];
    else if (keepdim) out[n++] = 1;
  }
  return Value::int_list(out.first(n));
}

}  // namespace

bool broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, std::span<int64_t> out) {
  size_t rank = out.size();
  for (size_t k = 0; k < rank; ++k) {
    int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1) return false;
    out[rank - 1 - k] = x == 1 ? y : x;
  }
  return true;
}

Value call_pure_primitive(Primitive p, std::span<const Value> args, ScratchArena& arena) {
  switch (p) {
    case Primitive::Len: return Value::integer(sequence_arg(args, 0, "len").size);
    case Primitive::Prod: return fold_numbers(sequence_arg(args, 0, "prod"), true);
    case Primitive::Sum: return fold_numbers(sequence_arg(args, 0, "sum"), false);
    case Primitive::Max: return extreme(args, true, "max");
    case Primitive::Min: return extreme(args, false, "min");
    case Primitive::All: {
      const Value& seq = sequence_arg(args, 0, "all");
      for (uint32_t k = 0; k < seq.size; ++k)
        if (!truthy(element(seq, k))) return Value::boolean(false);
      return Value::boolean(true);
    }
    case Primitive::CeilDiv: {
      int64_t a = as_int(args[0], "ceil_div's numerator"), b = as_int(args[1], "ceil_div's divisor");
      if (b <= 0) throw EvalError("ceil_div(" + std::to_string(a) + ", " + std::to_string(b) + "): the divisor must be positive");
      int64_t q = a / b;
      return Value::integer(q * b < a ? q + 1 : q);
    }
    case Primitive::Broadcast: {
      std::span<const int64_t> acc = shape_arg(args[0], "broadcast", arena);
      for (size_t k = 1; k < args.size(); ++k) {
        auto next = shape_arg(args[k], "broadcast", arena);
        auto out = arena.allocate<int64_t>(std::max(acc.size(), next.size()));
        if (!broadcast_shapes(acc, next, out)) throw BroadcastError(k - 1, k, args[k - 1], args[k]);
        acc = out;
      }
      return Value::int_list(acc);
    }
    case Primitive::Reduced: return reduced(args, arena);
    case Primitive::NormalizeAxis: {
      int64_t a = as_int(args[0], "an axis"), ndim = as_int(args[1], "ndim"), n;
      if (!normalized(a, ndim, n))
        throw EvalError("axis " + std::to_string(a) + " is out of range for " + range_text(ndim));
      return Value::integer(n);
    }
    case Primitive::ValidAxes: {
      std::array<bool, 64> chosen;
      try {
        axes_of(args[0], as_int(args[1], "ndim"), chosen);
      } catch (const EvalError&) {
        return Value::boolean(false);
      }
      return Value::boolean(true);
    }
    case Primitive::PromoteIntToFloat: {
      if (args[0].kind != ValueKind::DType)
        throw EvalError(std::string("promote_int_to_float() needs a dtype, got ") + kind_name(args[0]));
      return Value::dtype_of(args[0].dtype.is_floating() ? args[0].dtype : dtypes::float32);
    }
    default: throw EvalError(std::string(primitive_name(p)) + "() needs the call");
  }
}

}  // namespace tileops::manifest::detail
