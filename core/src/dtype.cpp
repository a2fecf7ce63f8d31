#include <tileops/dtype.hpp>

#include <array>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace tileops {
namespace {
constexpr std::array<std::pair<std::string_view, DType>, 11> kNamed{{
    {"float32", dtypes::float32},
    {"float64", dtypes::float64},
    {"float16", dtypes::float16},
    {"bfloat16", dtypes::bfloat16},
    {"float8_e4m3fn", dtypes::float8_e4m3fn},
    {"float8_e5m2", dtypes::float8_e5m2},
    {"int8", dtypes::int8},
    {"uint8", dtypes::uint8},
    {"int32", dtypes::int32},
    {"int64", dtypes::int64},
    {"bool", dtypes::bool_},
}};
}  // namespace

std::string_view DType::name() const {
  for (const auto& [name, dtype] : kNamed)
    if (dtype == *this) return name;
  // Unnamed dtypes are rare; their spellings are kept for the process so the view
  // stays valid, like the named ones.
  static std::mutex mu;
  static std::set<std::string> spellings;
  char buf[32];
  std::snprintf(buf, sizeof buf, "dtype(%u,%u,%u)", code, bits, lanes);
  std::lock_guard lock(mu);
  return *spellings.emplace(buf).first;
}

std::optional<DType> DType::parse(std::string_view name) {
  for (const auto& [known, dtype] : kNamed)
    if (known == name) return dtype;
  return std::nullopt;
}

}  // namespace tileops
