#pragma once
// Helpers for tests that call the checker: the manifests under test and a compact way
// to write a call.
#include <tileops/manifest.hpp>

#include <doctest/doctest.h>

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace tileops::manifest::test {

inline const Manifest& real_specs() {
  static const Manifest m = Manifest::load_dir(TILEOPS_SPEC_DIR);
  return m;
}
inline const Manifest& test_specs() {
  static const Manifest m = Manifest::load_dir(TILEOPS_TEST_SPECS);
  return m;
}

inline const Device& cuda0() {
  static const Device d("cuda", 0);
  return d;
}

struct T {
  DType dtype;
  std::vector<int64_t> shape;
  Device device = cuda0();
};
using Ts = std::vector<std::optional<T>>;

inline std::shared_ptr<const BoundSignature> bind_op(const Manifest& m, const char* op, const Params& params = {}) {
  const OpSpec* spec = m.find(op);
  REQUIRE_MESSAGE(spec, op);
  return spec->bind(params);
}

// The ValueError message of a bind, or "" when it binds.
inline std::string bind_error(const Manifest& m, const char* op, const Params& params) {
  try {
    bind_op(m, op, params);
    return "";
  } catch (const ValueError& e) {
    return e.what();
  }
}

// Runs check(); "" when the call passes, else the ValueError message.
class Call {
 public:
  std::string check(const BoundSignature& sig, const Ts& inputs, const Ts& outs = {}) {
    auto in = pointers(inputs);
    auto out = pointers(outs);
    try {
      sig.check(in, out, result);
      return "";
    } catch (const ValueError& e) {
      return e.what();
    }
  }
  std::vector<int64_t> shape(size_t output) const {
    auto s = result.outputs()[output].shape;
    return {s.begin(), s.end()};
  }
  DType dtype(size_t output) const { return result.outputs()[output].dtype; }

  CallCheck result;

 private:
  std::vector<const TensorDesc*> pointers(const Ts& ts) {
    std::vector<const TensorDesc*> out;
    for (const auto& t : ts) {
      if (!t) {
        out.push_back(nullptr);
        continue;
      }
      const auto& shape = shapes_.emplace_back(t->shape);
      out.push_back(&descs_.emplace_back(TensorDesc{t->device, t->dtype, shape}));
    }
    return out;
  }
  std::deque<std::vector<int64_t>> shapes_;
  std::deque<TensorDesc> descs_;
};

inline std::string check(const BoundSignature& sig, const Ts& inputs, const Ts& outs = {}) {
  return Call().check(sig, inputs, outs);
}

}  // namespace tileops::manifest::test
