#include <tileops/params.hpp>

#include <cstdio>
#include <cstdlib>

namespace tileops {
namespace {
std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the shortest spelling that reads back to the same value.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

template <class T, class F>
std::string join(const std::vector<T>& items, F format) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + format(items[i]);
  return out + "]";
}
}  // namespace

std::string to_string(const ParamValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "none"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double f) const { return format_double(f); }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
    std::string operator()(const std::vector<int64_t>& l) const {
      return join(l, [](int64_t i) { return std::to_string(i); });
    }
    std::string operator()(const std::vector<double>& l) const { return join(l, format_double); }
    std::string operator()(DType d) const { return std::string(d.name()); }
  };
  return std::visit(Visitor{}, v);
}

std::string_view kind_name(const ParamValue& v) {
  static constexpr std::string_view kNames[] = {"none", "bool",      "int",         "float",
                                                "str",  "list[int]", "list[float]", "dtype"};
  return kNames[v.index()];
}

}  // namespace tileops
