#pragma once
// The per-call check of a bound signature (see BoundSignature::check for the order).
// Everything here runs on every op call: no strings are built and nothing is looked
// up by name unless a check is about to fail; the cold paths that build messages are
// in check_messages.cpp.
#include "check/bound_plan.hpp"

#include <tileops/manifest/bound_signature.hpp>

namespace tileops::manifest::detail {

struct Checker {
  const BoundSignature& signature;
  const BoundPlan& plan;
  CallCheck& call;
  CallState& state;
  EvalContext cx;

  Checker(const BoundSignature& sig, const BoundPlan& p, CallCheck& c);

  void run(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs);
  static void check_produced(const BoundPlan& plan, const CallCheck& call, std::span<const TensorDesc* const> produced);

  // Steps, in order.
  void record_inputs(std::span<const TensorDesc* const> inputs);
  void unify();
  void check_rules();
  void check_dtype_combos();
  void settle_device(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs);
  void infer_outputs();
  void check_supplied(std::span<const TensorDesc* const> outs);

  // Unification of one input; false when part of it waits for indices other inputs bind.
  bool unify_input(size_t i);
  bool unify_dtype(size_t i);
  bool unify_shape(size_t i);
  void bind_dim(uint32_t slot, int64_t value, size_t input, size_t axis);
  void solve(const BoundItem& item, size_t input, size_t axis, int64_t a, int64_t offset);
  bool solve_scalar(const BoundItem& item, size_t input, size_t axis);
  Value eval(const Expr& e, size_t input, const char* what);

  // Cold: throw a ValueError with the message (check_messages.cpp).
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_missing(size_t input);
  [[noreturn]] void fail_rank(size_t input, size_t at_least, bool exact);
  [[noreturn]] void fail_shape(size_t input);
  [[noreturn]] void fail_bound_dim(size_t input, uint32_t slot, size_t axis);
  [[noreturn]] void fail_bound_splice(size_t input, uint32_t slot, size_t axis, size_t len);
  [[noreturn]] void fail_solve(size_t input, const BoundItem& item, size_t axis, int64_t a, int64_t offset);
  [[noreturn]] void fail_dtype(size_t input);
  [[noreturn]] void fail_unresolved(uint32_t pending);
  [[noreturn]] void fail_rule(const BoundRule& rule, const char* detail);
  [[noreturn]] void fail_combo();
  [[noreturn]] void fail_devices(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs);
  [[noreturn]] void fail_host(size_t input, const Device& got);
  [[noreturn]] void fail_eval(const EvalError& error, const std::string& where);
  [[noreturn]] void fail_output(size_t output, const TensorDesc& got, const char* what) {
    fail_output_mismatch(plan, output, got, call.outputs_[output], what);
  }
  [[noreturn]] static void fail_output_mismatch(const BoundPlan& plan, size_t output, const TensorDesc& got,
                                                const InferredOutput& want, const char* what);

  const std::string& op() const { return plan.spec->name; }
};

}  // namespace tileops::manifest::detail
