#include "op/abi_views.hpp"

#include <variant>

namespace tileops::detail {

std::vector<tileops_param> param_views(const std::vector<std::string>& names,
                                       const std::vector<ParamValue>& values) {
  std::vector<tileops_param> out(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    tileops_param& p = out[i];
    p.name = names[i].c_str();
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate>) {
            p.kind = TILEOPS_PARAM_NONE;
          } else if constexpr (std::is_same_v<V, bool>) {
            p.kind = TILEOPS_PARAM_BOOL;
            p.u.b = v ? 1 : 0;
          } else if constexpr (std::is_same_v<V, int64_t>) {
            p.kind = TILEOPS_PARAM_INT;
            p.u.i = v;
          } else if constexpr (std::is_same_v<V, double>) {
            p.kind = TILEOPS_PARAM_FLOAT;
            p.u.f = v;
          } else if constexpr (std::is_same_v<V, std::string>) {
            p.kind = TILEOPS_PARAM_STRING;
            p.u.s = v.c_str();
          } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
            p.kind = TILEOPS_PARAM_INT_LIST;
            p.u.ints = {v.data(), v.size()};
          } else if constexpr (std::is_same_v<V, std::vector<double>>) {
            p.kind = TILEOPS_PARAM_FLOAT_LIST;
            p.u.floats = {v.data(), v.size()};
          } else {
            p.kind = TILEOPS_PARAM_DTYPE;
            p.u.dtype = v.to_c();
          }
        },
        values[i]);
  }
  return out;
}

}  // namespace tileops::detail
