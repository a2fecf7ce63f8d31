#pragma once
// Python semantics over Values: truth, numbers, sequence access, equality and order.
#include <tileops/manifest/detail/value.hpp>

#include <stdexcept>
#include <string>

namespace tileops::manifest::detail {

// A failed evaluation. `names_items`: the message already names what failed (a
// broadcast naming its inputs), so the caller only prefixes the op.
class EvalError : public std::runtime_error {
 public:
  explicit EvalError(const std::string& what, bool names_items = false)
      : std::runtime_error(what), names_items(names_items) {}
  bool names_items;
};

bool truthy(const Value& v);
bool is_number(const Value& v);  // bool, int or float
bool is_integer(const Value& v);  // bool or int
int64_t as_int(const Value& v, const char* what);  // throws EvalError unless bool or int
double as_float(const Value& v, const char* what);  // throws EvalError unless a number
Value element(const Value& seq, size_t i);
bool equal(const Value& a, const Value& b);
// -1, 0, 1; throws EvalError for values without an order.
int order(const Value& a, const Value& b);

// "3", "1e-06", "true", "none", "'tanh'", "[2, 3]", "float16"
std::string format_value(const Value& v);
const char* kind_name(const Value& v);

}  // namespace tileops::manifest::detail
