// The conformance table's calls, mutated (a dim of one input set to 0, 1 or some other
// size; a dim added or dropped; an input's dtype changed; an input omitted or given; a
// param set to an edge value or to a value of another kind, or an unknown param added),
// through the generic API on cpu_ref: each either runs or throws a tileops::Error with a
// message, and never anything else or a crash (under ASan/UBSan, never undefined
// behaviour either). The seed is fixed; TILEOPS_MUTATIONS sets the calls per case (the
// `stress` ctest entry runs many more).
#include <doctest/doctest.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tileops/errors.hpp>
#include <tileops/manifest/manifest.hpp>
#include <tileops/tileops.hpp>
#include <typeinfo>
#include <variant>
#include <vector>

#include "support.hpp"
#include "../fuzz_seed.hpp"

using namespace tileops;
using namespace conformance;

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 20;  // keeps every call cheap

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : gen_(seed) {}

  // One to three mutations of `c`, each described in `what`.
  OpCase mutate(const OpCase& c, std::string& what) {
    OpCase m = c;
    for (int n = pick(1, 3); n > 0; --n) what += (what.empty() ? "" : "; ") + mutate_once(m);
    return m;
  }

 private:
  int64_t pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  template <class T>
  const T& one_of(const std::vector<T>& v) {
    return v[size_t(pick(0, int64_t(v.size()) - 1))];
  }

  std::string mutate_once(OpCase& m) {
    switch (pick(0, 5)) {
      case 0:
      case 1:
        return mutate_dim(m);
      case 2:
        return mutate_dtype(m);
      case 3:
        return toggle_input(m);
      default:
        return mutate_param(m);
    }
  }

  std::string mutate_dim(OpCase& m) {
    InputSpec& in = m.inputs[size_t(pick(0, int64_t(m.inputs.size()) - 1))];
    if (!in.present) return "nothing";
    const int64_t choice = pick(0, 3);
    if (choice == 0 || in.shape.empty()) {
      in.shape.insert(in.shape.begin() + pick(0, int64_t(in.shape.size())), one_of<int64_t>({0, 1, 3}));
      return in.name + " gains a dim: " + format_shape(in.shape);
    }
    const size_t axis = size_t(pick(0, int64_t(in.shape.size()) - 1));
    if (choice == 1) {
      in.shape.erase(in.shape.begin() + std::ptrdiff_t(axis));
      return in.name + " loses a dim: " + format_shape(in.shape);
    }
    in.shape[axis] = one_of<int64_t>({0, 1, 2, 5, 16, in.shape[axis] + 1, in.shape[axis] > 0 ? in.shape[axis] - 1 : 0});
    return in.name + " dim " + std::to_string(axis) + ": " + format_shape(in.shape);
  }

  std::string mutate_dtype(OpCase& m) {
    InputSpec& in = m.inputs[size_t(pick(0, int64_t(m.inputs.size()) - 1))];
    in.dtype = one_of<DType>({dt::float32, dt::float16, dt::bfloat16, dt::float64, dt::int32, dt::int64, dt::uint8,
                              dt::bool_, dt::float8_e4m3fn});
    return in.name + " is " + std::string(in.dtype.name());
  }

  std::string toggle_input(OpCase& m) {
    InputSpec& in = m.inputs[size_t(pick(0, int64_t(m.inputs.size()) - 1))];
    in.present = !in.present;
    if (in.present && in.shape.empty()) in.shape = {3};
    return in.name + (in.present ? " given" : " omitted");
  }

  // An edge value for a param the case gives or one of the spec's (or an unknown one).
  std::string mutate_param(OpCase& m) {
    if (pick(0, 9) == 0) {
      m.params.push_back({"no_such_param", int64_t(1)});
      return "an unknown param";
    }
    const auto spec = manifest::Manifest::builtin().find(m.op)->params();
    if (!spec.empty() && (m.params.empty() || pick(0, 1) == 0)) {
      const std::string& name = spec[size_t(pick(0, int64_t(spec.size()) - 1))].name;
      if (!m.find(name)) m.params.push_back({name, std::monostate{}});
    }
    if (m.params.empty()) return "nothing";
    Param& p = m.params[size_t(pick(0, int64_t(m.params.size()) - 1))];
    const std::vector<ParamValue> edges{std::monostate{},
                                        false,
                                        int64_t(0),
                                        int64_t(-1),
                                        int64_t(-7),
                                        int64_t(3),
                                        int64_t(1) << 62,
                                        std::numeric_limits<int64_t>::min(),
                                        0.0,
                                        -1.0,
                                        std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::infinity(),
                                        std::string(),
                                        std::string("tanh"),
                                        std::vector<int64_t>{},
                                        std::vector<int64_t>{0},
                                        std::vector<int64_t>{-1, -1},
                                        std::vector<int64_t>{int64_t(1) << 40, int64_t(1) << 40},
                                        std::vector<double>{1.0},
                                        DType(dt::int64)};
    p.value = one_of(edges);
    static const char* const kKinds[] = {"None",     "a bool",      "an int",       "a float",
                                         "a string", "an int list", "a float list", "a dtype"};
    return "param " + p.name + " is " + kKinds[p.value.index()];
  }

  std::mt19937_64 gen_;
};

bool small_enough(const OpCase& c) {
  for (const auto& in : c.inputs) {
    if (!in.present) continue;
    int64_t n = 1;
    for (int64_t d : in.shape) n *= d;
    if (n > kMaxElements) return false;
  }
  return true;
}

int mutations_per_case() {
  const char* env = std::getenv("TILEOPS_MUTATIONS");
  return env ? std::atoi(env) : 200;
}

}  // namespace

TEST_CASE("mutated calls of every op run or throw a tileops::Error with a message, on cpu_ref") {
  std::map<std::string, int> ran, refused;
  Mutator mutator(tileops::testing::fuzz_seed());
  for (const OpCase& base : op_cases())
    for (int i = 0; i < mutations_per_case(); ++i) {
      std::string what;
      const OpCase c = mutator.mutate(base, what);
      if (!small_enough(c)) continue;
      INFO(base.id << ": " << what);
      try {
        Op op(c.op, c.params);
        op(std::span<const Tensor>(make_inputs(c)));
        ++ran[c.op];
      } catch (const Error& e) {
        CHECK_MESSAGE(std::string(e.what()).size() > 0, "an empty message");
        ++refused[c.op];
      } catch (const std::exception& e) {
        FAIL_CHECK("threw " << std::string(typeid(e).name()) << ", not a tileops::Error: " << std::string(e.what()));
      }
    }
  size_t total = 0;
  for (const auto& [op, n] : ran) total += size_t(n);
  MESSAGE(total << " mutated calls ran, " << refused.size() << " ops refused some");
  CHECK(ran.size() >= 20);  // the mutations reach the kernels of most ops, not only the checks
}
