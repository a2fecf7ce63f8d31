#pragma once
// Op parameters as a caller passes them and as the manifest settles them.
#include <tileops/dtype.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tileops {

// The value of one parameter. std::monostate is None (a null default).
using ParamValue = std::variant<std::monostate, bool, int64_t, double, std::string,
                                std::vector<int64_t>, std::vector<double>, DType>;

// Converting helpers so that call sites read naturally:
//   Params{{"normalized_shape", ints({4096})}, {"eps", 1e-6}}
inline ParamValue ints(std::initializer_list<int64_t> v) { return std::vector<int64_t>(v); }
inline ParamValue floats(std::initializer_list<double> v) { return std::vector<double>(v); }
inline ParamValue none() { return std::monostate{}; }

struct Param {
  std::string name;
  ParamValue value;

  // One exact overload per literal kind, so that {"trans_b", true} stays a bool,
  // {"eps", 1e-5} a double and {"approximate", "tanh"} a string.
  Param(std::string n, ParamValue v) : name(std::move(n)), value(std::move(v)) {}
  Param(std::string n, bool v) : name(std::move(n)), value(v) {}
  Param(std::string n, int v) : name(std::move(n)), value(int64_t(v)) {}
  Param(std::string n, int64_t v) : name(std::move(n)), value(v) {}
  Param(std::string n, double v) : name(std::move(n)), value(v) {}
  Param(std::string n, const char* v) : name(std::move(n)), value(std::string(v)) {}
};

// Named parameters in the order the caller gave them.
using Params = std::vector<Param>;

// "none", "true", "3", "1e-06", "'tanh'", "[4096]", "float16".
std::string to_string(const ParamValue& v);
// "none", "bool", "int", "float", "str", "list[int]", "list[float]", "dtype".
std::string_view kind_name(const ParamValue& v);

}  // namespace tileops
