#pragma once
// Stand-in for runtime/include/tileops/op.hpp with the two members the generated op
// classes use; it records what they pass so test_codegen.cpp can check it.
#include <tileops/backend.hpp>
#include <tileops/params.hpp>
#include <tileops/tensor.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tileops {

struct RecordedCall {
  std::string op;
  Params params;
  Target target;
  std::vector<bool> inputs_defined;
  size_t outputs = 0;
};

inline RecordedCall& last_call() {
  static RecordedCall recorded;
  return recorded;
}

class Op {
 public:
  Op(std::string_view name, const Params& params = {}, Target target = std::nullopt) {
    last_call() = RecordedCall{std::string(name), params, std::move(target), {}, 0};
  }
  void call(std::span<const Tensor> inputs, std::span<Tensor> outputs) {
    last_call().inputs_defined.clear();
    for (const Tensor& t : inputs) last_call().inputs_defined.push_back(t.defined());
    last_call().outputs = outputs.size();
  }
};

}  // namespace tileops
