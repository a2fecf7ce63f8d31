#pragma once
// Tensor `shape` and `dtype` texts -> unification templates.
#include "load/spec_context.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tileops::manifest::detail {

void compile_shape(SpecContext& cx, const std::string& text, const Where& where, CompiledTensor& out);
void compile_dtype(SpecContext& cx, const std::string& text, const Where& where, DTypeTemplate& out);

struct BracketItem {
  std::string text;  // trimmed
  size_t offset;     // of its first character in the whole text
};

// The comma-separated items between text[open] (a '[') and its matching ']', which
// must end the text; nullopt when the brackets do not match that way.
std::optional<std::vector<BracketItem>> bracketed_items(const std::string& text, size_t open);

}  // namespace tileops::manifest::detail
