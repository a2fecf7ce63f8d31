#pragma once
// Runs a composite op's `composition`: each step is a sub-op (held once per step,
// built at its first use) given the composite's target, which settles on its own.
#include <tileops/manifest.hpp>
#include <tileops/op.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tileops::detail {

class CompositeRunner {
 public:
  CompositeRunner(const manifest::OpSpec& spec, const manifest::BoundSignature& signature,
                  std::string target, bool tuned);

  void run(std::span<const Tensor> inputs, std::span<Tensor> outputs,
           const manifest::CallCheck& check);
  void request_tune();
  std::string kernel_config() const;

 private:
  Op& step_op(size_t step);

  const manifest::OpSpec& spec_;
  const manifest::BoundSignature& signature_;
  std::string target_;
  bool tuned_;
  std::vector<std::optional<Op>> steps_;
};

}  // namespace tileops::detail
