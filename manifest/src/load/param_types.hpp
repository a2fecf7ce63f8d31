#pragma once
// Param type texts ("float | None", "'none' | 'tanh'", "list[int] | tuple[int, ...]",
// "DType[float16 | bfloat16]") and the values they accept.
#include <tileops/manifest/detail/value.hpp>
#include <tileops/manifest/op_spec.hpp>

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace tileops::manifest::detail {

// Fills kind, nullable, enum_values and dtype_values of `param` from its type_text.
// Returns an error message, or nullopt.
std::optional<std::string> parse_param_type(ParamSpec& param);

// `value` as `param` settles it (an int for a float becomes a double, a dtype name a
// DType). On failure returns nullopt and sets `error` ("must be float | None, got str 'x'").
std::optional<ParamValue> coerce_param(const ParamSpec& param, const ParamValue& value, std::string& error);

// A YAML scalar or sequence as a ParamValue, before coercion: none, bool, int, float,
// string, list of ints or list of floats. nullopt (with `error`) for other shapes.
std::optional<ParamValue> yaml_to_param_value(const YAML::Node& node, std::string& error);

// A view of a settled value; valid while `value` lives and is not modified.
Value view_of(const ParamValue& value);

// The pieces of a text split at top-level `|` (outside brackets and quotes), trimmed.
std::vector<std::string> split_alternatives(const std::string& text);
std::string trim(std::string_view s);

}  // namespace tileops::manifest::detail
