#pragma once
// tileops::Op: one op of the manifest, constructed with its params, called on tensors.
//
//   tileops::Op rms("RMSNormFwdOp", {{"normalized_shape", tileops::ints({4096})}});
//   auto outs = rms({x, w});                       // outs[0] is y
//
// Construction loads the plugins (once), finds the spec and checks the params; it
// queries no device. Each call runs the checks generated from the spec, settles the
// target on the first call (constructor target, process default, then detection),
// and runs the target's kernel (memoised per device and input signature) or the
// in-tree kernels. A call that fails after the checks drops the target decision and
// every memoised kernel.
//
// Threads: one Op may be called, tuned and asked for its config from several threads
// at once (a memo miss builds under the op's lock while hits go on; test_concurrency);
// moving or destroying it must not overlap any of those.
#include <tileops/backend.hpp>
#include <tileops/params.hpp>
#include <tileops/tensor.hpp>

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tileops {

namespace detail {
class OpState;
}

struct Roofline {
  double flops = 0;
  double bytes = 0;
};

class Op {
 public:
  Op(std::string_view name, const Params& params = {}, Target target = std::nullopt);
  ~Op();
  Op(Op&&) noexcept;
  Op& operator=(Op&&) noexcept;

  // Inputs in signature order; an undefined Tensor (or a missing trailing entry) is
  // an omitted optional input. Returns the outputs in signature order.
  std::vector<Tensor> operator()(std::span<const Tensor> inputs);
  std::vector<Tensor> operator()(std::initializer_list<Tensor> inputs) {
    return (*this)(std::span<const Tensor>(inputs.begin(), inputs.size()));
  }
  // The allocation-free form: `outputs` has one slot per signature output; a defined
  // slot is the caller's `out` buffer (outputs declared `buffer: out` only), an
  // undefined one receives a new tensor.
  void call(std::span<const Tensor> inputs, std::span<Tensor> outputs);

  const std::string& name() const;
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  // The settled params in manifest order, defaults filled.
  Params params() const;
  // The target this instance settled on (BUILTIN for the in-tree kernels), or nullopt
  // before its first call and after a failed one.
  Target target() const;

  // Enters tuned mode: tunes every kernel built so far (once per device it was built
  // for) and every kernel built from now on, before its first launch.
  void request_tune();
  // The first non-empty kernel configuration (a JSON object), or "" when none.
  std::string kernel_config() const;
  // FLOPs and bytes of a call with these inputs, from the manifest's formulas.
  Roofline roofline(std::span<const Tensor> inputs) const;

 private:
  std::shared_ptr<detail::OpState> state_;
};

}  // namespace tileops
