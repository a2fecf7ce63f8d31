#pragma once
// State shared by the pieces that compile one op's entry: where problems go, the spec
// being built, the names in scope, the type families.
#include "compiled_spec.hpp"
#include "expr/resolve.hpp"
#include "load/problems.hpp"

#include <tileops/manifest/manifest.hpp>

#include <memory>
#include <span>
#include <string>

namespace tileops::manifest::detail {

struct SpecContext {
  Problems& problems;
  CompiledSpec& spec;
  std::span<const TypeFamily> families;
  Scope scope;

  void problem(const Where& where, std::string message) {
    problems.add(*where.file, where.line, where.key, std::move(message));
  }
  // Parses and resolves `text`; reports problems and returns nullptr on failure. When
  // `text` is a piece of a larger text (an item of a shape), messages quote `whole`
  // with columns counted from its start.
  std::unique_ptr<Expr> compile(const std::string& text, const Where& where, ResolveOptions options = {},
                                const std::string* whole = nullptr, size_t offset = 0);
  const TypeFamily* family(std::string_view name) const;
};

// "'[M, K': expected ']' to close the list (column 6)"
std::string expression_problem(const std::string& text, uint32_t pos, const std::string& message);

}  // namespace tileops::manifest::detail
