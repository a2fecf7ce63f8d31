#pragma once
// Runs a composite op's `composition`: each step is a sub-op, built with the runner
// and given the composite's target, on which it settles on its own. Immutable once
// built, so concurrent calls share it.
#include <tileops/manifest.hpp>
#include <tileops/op.hpp>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tileops::detail {

class CompositeRunner {
 public:
  // `tuned`: the composite is in tuned mode, so its sub-ops start in it too.
  CompositeRunner(const manifest::OpSpec& spec, const manifest::BoundSignature& signature,
                  const std::string& target, bool tuned);

  void run(std::span<const Tensor> inputs, std::span<Tensor> outputs,
           const manifest::CallCheck& check);
  void request_tune();
  std::string kernel_config() const;

 private:
  const manifest::OpSpec& spec_;
  std::vector<Op> steps_;
};

}  // namespace tileops::detail
