#include "load/spec_context.hpp"

#include "expr/lexer.hpp"
#include "expr/parser.hpp"

namespace tileops::manifest::detail {

std::string expression_problem(const std::string& text, uint32_t pos, const std::string& message) {
  return "in '" + text + "': " + message + " (column " + std::to_string(pos + 1) + ")";
}

std::unique_ptr<Expr> SpecContext::compile(const std::string& text, const Where& where, ResolveOptions options,
                                           const std::string* whole, size_t offset) {
  const std::string& quoted = whole ? *whole : text;
  auto expr = std::make_unique<Expr>();
  try {
    *expr = parse_expression(text);
  } catch (const SyntaxError& error) {
    problem(where, expression_problem(quoted, uint32_t(error.pos + offset), error.what()));
    return nullptr;
  }
  auto found = resolve(*expr, scope, options);
  for (const ExprProblem& p : found) problem(where, expression_problem(quoted, uint32_t(p.pos + offset), p.message));
  return found.empty() ? std::move(expr) : nullptr;
}

const TypeFamily* SpecContext::family(std::string_view name) const {
  for (const TypeFamily& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace tileops::manifest::detail
