#pragma once
// Constant folding for a bound signature: every subtree that reads only params (and
// constants) is evaluated once and replaced by its value. A subtree whose evaluation
// fails (`p.value` under a `present(p)` guard, with p None) is kept as it is: it only
// fails at call time if the call actually reaches it.
#include "expr/eval.hpp"

namespace tileops::manifest::detail {

Expr fold_params(const Expr& source, EvalContext& params_only);

}  // namespace tileops::manifest::detail
