#pragma once
// A spec with its params settled: the per-call checks, compiled for those params.
#include <tileops/device.hpp>
#include <tileops/manifest/detail/call_state.hpp>
#include <tileops/manifest/workload.hpp>
#include <tileops/params.hpp>
#include <tileops/shape.hpp>

#include <boost/container/small_vector.hpp>

#include <memory>
#include <span>

namespace tileops::manifest {

class OpSpec;
class BoundSignature;
namespace detail {
struct BoundPlan;
struct Checker;
}

namespace detail {
// Device() interns its type name under a lock; copies of this one are free.
inline const Device& cpu_device() {
  static const Device cpu = Device::cpu();
  return cpu;
}
}  // namespace detail

struct InferredOutput {
  DType dtype;
  Dims shape;
  Device device = detail::cpu_device();
};

struct Roofline {
  double flops = 0;
  double bytes = 0;
};

// What one call check produced. Caller-owned and reusable: keep one per op (or per
// thread) and pass it to every check; it never allocates for ordinary ops.
class CallCheck {
 public:
  CallCheck() = default;
  CallCheck(const CallCheck&) = delete;
  CallCheck& operator=(const CallCheck&) = delete;

  // The device the call runs on.
  const Device& device() const { return device_; }
  std::span<const InferredOutput> outputs() const { return {outputs_.data(), outputs_.size()}; }

  // Index values after a check, by OpSpec::index_slot.
  int64_t dim(size_t slot) const { return state_.indices[slot].i; }
  std::span<const int64_t> dims(size_t slot) const { return state_.indices[slot].int_span(); }
  DType dtype(size_t slot) const { return state_.indices[slot].dtype; }
  bool has_value(size_t slot) const { return state_.is_bound(uint32_t(slot)); }

 private:
  friend class BoundSignature;
  friend struct detail::Checker;

  const BoundSignature* checked_by_ = nullptr;
  Device device_ = detail::cpu_device();
  boost::container::small_vector<InferredOutput, 4> outputs_;
  detail::CallState state_;
};

class BoundSignature {
 public:
  BoundSignature(const OpSpec& spec, std::unique_ptr<detail::BoundPlan> plan);
  ~BoundSignature();
  BoundSignature(const BoundSignature&) = delete;
  BoundSignature& operator=(const BoundSignature&) = delete;

  const OpSpec& spec() const { return *spec_; }
  // Settled values in manifest order (monostate for a null default).
  std::span<const ParamValue> params() const;
  // A composite's step `step`: the params its op is constructed with, evaluated from
  // this signature's params.
  const Params& composition_params(size_t step) const;

  // Tensor properties as settled for these params.
  bool input_optional(size_t i) const;
  bool input_written(size_t i) const;  // mutated or write_only
  bool input_mutated(size_t i) const;
  bool input_write_only(size_t i) const;
  bool input_contiguous(size_t i) const;

  // The hot path, run on every op call. `inputs` has one entry per signature input
  // (nullptr: an omitted optional input); `outs` is empty or has one entry per output
  // (nullptr: not supplied). In order: presence; unification and dtypes; shape_rules;
  // dtype_combos; one call device; output shapes and dtypes inferred into `call`;
  // supplied outs checked against them. Throws ValueError.
  void check(std::span<const TensorDesc* const> inputs, std::span<const TensorDesc* const> outs,
             CallCheck& call) const;

  // After the implementation returned: count, shape, dtype and device of its outputs.
  void check_outputs(std::span<const TensorDesc* const> produced, const CallCheck& call) const;

  // FLOPs and bytes of the checked call; bytes derived from the signature when the spec
  // gives no formula.
  Roofline roofline(const CallCheck& call) const;
  // The byte count derived from the signature, whether or not the spec gives a formula
  // (the validator compares the two).
  double derived_bytes(const CallCheck& call) const;

  // Where each input's values are drawn from for this checked call (its `values`
  // range over the call's bindings; defaults otherwise; absent inputs get defaults).
  std::vector<ValueRange> value_ranges(const CallCheck& call) const;

  const detail::BoundPlan& plan() const { return *plan_; }

 private:
  const OpSpec* spec_;
  std::unique_ptr<detail::BoundPlan> plan_;
};

}  // namespace tileops::manifest
