#pragma once
// Text -> expression tree (names not yet resolved). Python's grammar and precedence,
// restricted to the manifest's expression language; throws SyntaxError.
#include "expr/expr.hpp"

#include <string>

namespace tileops::manifest::detail {

Expr parse_expression(std::string text);

}  // namespace tileops::manifest::detail
