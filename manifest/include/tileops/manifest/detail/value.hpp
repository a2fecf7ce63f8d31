#pragma once
// The value an expression evaluates to. A view: tuples and strings point into storage
// owned elsewhere (an expression's constant pool, a bound signature's params, or a
// CallCheck's scratch arena), so copying a Value never allocates.
#include <tileops/dtype.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace tileops::manifest::detail {

enum class ValueKind : uint8_t { None, Bool, Int, Float, Str, DType, Ints, Floats, Tuple };

struct Value {
  ValueKind kind = ValueKind::None;
  uint32_t size = 0;  // element count of Ints, Floats and Tuple
  union {
    bool b;
    int64_t i;
    double f;
    const std::string* s;
    DType dtype;
    const int64_t* ints;
    const double* floats;
    const Value* items;
  };

  Value() : i(0) {}
  static Value none() { return Value(); }
  static Value boolean(bool v) {
    Value r;
    r.kind = ValueKind::Bool;
    r.b = v;
    return r;
  }
  static Value integer(int64_t v) {
    Value r;
    r.kind = ValueKind::Int;
    r.i = v;
    return r;
  }
  static Value real(double v) {
    Value r;
    r.kind = ValueKind::Float;
    r.f = v;
    return r;
  }
  static Value str(const std::string* v) {
    Value r;
    r.kind = ValueKind::Str;
    r.s = v;
    return r;
  }
  static Value dtype_of(DType v) {
    Value r;
    r.kind = ValueKind::DType;
    r.dtype = v;
    return r;
  }
  static Value int_list(std::span<const int64_t> v) {
    Value r;
    r.kind = ValueKind::Ints;
    r.size = uint32_t(v.size());
    r.ints = v.data();
    return r;
  }
  static Value float_list(std::span<const double> v) {
    Value r;
    r.kind = ValueKind::Floats;
    r.size = uint32_t(v.size());
    r.floats = v.data();
    return r;
  }
  static Value tuple(std::span<const Value> v) {
    Value r;
    r.kind = ValueKind::Tuple;
    r.size = uint32_t(v.size());
    r.items = v.data();
    return r;
  }

  bool is_none() const { return kind == ValueKind::None; }
  bool is_sequence() const {
    return kind == ValueKind::Ints || kind == ValueKind::Floats || kind == ValueKind::Tuple;
  }
  std::span<const int64_t> int_span() const { return {ints, size}; }
  std::span<const Value> tuple_span() const { return {items, size}; }
};

}  // namespace tileops::manifest::detail
