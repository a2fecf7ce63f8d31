// The broken-plugin zoo next to the well-behaved plugins: every failure is recorded
// with path, stage and reason, nothing of a failed plugin stays registered, and the
// plugins that loaded keep serving. Run with TILEOPS_PLUGIN_PATH=<zoo>:<vendor>.
#include <tileops/tileops.h>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tileops;

namespace {

const LoadFailure* failure_of(const std::vector<LoadFailure>& failures, const std::string& file) {
  for (const auto& f : failures)
    if (f.path.size() >= file.size() && f.path.compare(f.path.size() - file.size(), file.size(), file) == 0)
      return &f;
  return nullptr;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

struct Expected {
  const char* file;
  const char* stage;
  std::vector<const char*> reason_parts;
};

}  // namespace

TEST_CASE("every broken fixture is recorded with its stage and reason") {
  const auto failures = load_failures();
  const std::vector<Expected> expected = {
      {"/not_a_library.so", "open", {"not a shared library", "no ELF header", "invalid ELF header"}},
      {"/wrong_arch.so", "open", {"wrong architecture", "built for aarch64", "this host is x86_64"}},
      {"/missing_dependency.so", "open", {"missing dependency", "libtileops_fixture_absent_dep.so"}},
      {"/no_entry_symbol.so", "symbol", {"tileops_plugin_entry"}},
      {"/no_abi_version_symbol.so", "symbol", {"tileops_plugin_abi_version"}},
      {"/abi_from_future.so", "abi_version", {"plugin ABI 2.0", "host ABI 1.0"}},
      {"/entry_returns_error.so", "entry", {"fixture: the vendor runtime is not initialised"}},
      {"/entry_fails_silently.so", "entry", {"entry failed: device error (status 5; the backend gave no message)"}},
      {"/entry_throws.so", "entry", {"entry threw", "fixture: entry threw"}},
      {"/half_registered.so", "entry", {"fixture: failed after registering half"}},
      {"/duplicate_target_b.so", "register", {"target 'dup' already has a kernel builder for SoftmaxFwdOp", "duplicate_target_a.so"}},
      {"/unknown_op.so", "register", {"'RMSNormFwOp' is not an op of the manifest", "did you mean RMSNormFwdOp"}},
      {"/duplicate_device_facts.so", "register", {"device facts for 'cuda'", "built-in CUDA plugin"}},
  };
  for (const auto& e : expected) {
    CAPTURE(e.file);
    const LoadFailure* f = failure_of(failures, e.file);
    REQUIRE(f != nullptr);
    CHECK(f->stage == e.stage);
    for (const char* part : e.reason_parts) {
      CAPTURE(part);
      CHECK(f->reason.find(part) != std::string::npos);
    }
  }
  CHECK(failures.size() == expected.size());
}

TEST_CASE("failed plugins appear in plugins() as failed, the others as loaded") {
  auto list = plugins();
  auto state_of = [&](const std::string& file) {
    for (const auto& p : list)
      if (p.path.size() >= file.size() && p.path.compare(p.path.size() - file.size(), file.size(), file) == 0)
        return p.state;
    return std::string("absent");
  };
  CHECK(state_of("/entry_throws.so") == "failed");
  CHECK(state_of("/duplicate_target_a.so") == "loaded");
  CHECK(state_of("/libtileops_acme.so") == "loaded");
  CHECK(state_of("/libtileops_cpu_ref.so") == "loaded");
}

TEST_CASE("a plugin that registered half and then failed leaves nothing behind") {
  CHECK_FALSE(contains(registered_targets(), "half"));
  CHECK(registered_targets("RMSNormFwdOp") == std::vector<std::string>{"acme", "cpu_ref", "greedy", "nolaunch"});
  CHECK_THROWS_WITH_AS(Tensor::empty({4}, dtypes::float32, Device("halfdev", 0)),
                       doctest::Contains("no device runtime for device type 'halfdev'"),
                       BackendError);
  for (const auto& p : plugins())
    for (const auto& k : p.kernel_types) CHECK(k.find("half_rms_norm") == std::string::npos);
}

TEST_CASE("a second claim on the same (op, target) is rolled back whole; the first stays") {
  auto targets = registered_targets();
  CHECK(contains(targets, "dup"));
  CHECK_FALSE(contains(targets, "dup_b"));  // registered by _b before its refusal
  CHECK(registered_targets("SoftmaxFwdOp") == std::vector<std::string>{"acme", "badlaunch", "cpu_ref", "dup"});
}

TEST_CASE("a detector that claims everything makes detection ambiguous, naming both") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  Tensor x = Tensor::empty({2, 8}, dtypes::float32);
  CHECK_THROWS_WITH_AS(op({x}), "several targets claim device cpu: ['cpu_ref', 'greedy']; pass target= or set_default_target() to choose one",
                       AmbiguousTargetError);
  CHECK_FALSE(op.target().has_value());
}

TEST_CASE("the other plugins serve normally when chosen explicitly") {
  Tensor x = Tensor::empty({2, 8}, dtypes::float32);
  for (int i = 0; i < 16; ++i) x.data_ptr<float>()[i] = float(i + 1);
  Op greedy("RMSNormFwdOp", {{"normalized_shape", ints({8})}}, "greedy");
  Op ref("RMSNormFwdOp", {{"normalized_shape", ints({8})}}, "cpu_ref");
  Tensor a = greedy({x})[0];
  Tensor b = ref({x})[0];
  for (int i = 0; i < 16; ++i) CHECK(a.data_ptr<float>()[i] == doctest::Approx(b.data_ptr<float>()[i]).epsilon(1e-6));
  CHECK(greedy.target() == "greedy");
}

TEST_CASE("a builder that returns a kernel without launch fails the call, naming the target") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({4})}}, "nolaunch");
  Tensor x = Tensor::empty({1, 4}, dtypes::float32, Device("nolaunchdev", 0));
  CHECK_THROWS_WITH_AS(op({x}), "target 'nolaunch' returned a kernel for RMSNormFwdOp that cannot be called: its launch is NULL",
                       BackendError);
  CHECK_FALSE(op.target().has_value());
}

TEST_CASE("a failing launch revokes the target and drops the memo: the next call builds again") {
  Op op("SoftmaxFwdOp", {}, "badlaunch");
  Tensor x = Tensor::empty({2, 3}, dtypes::float32);
  std::vector<std::string> failures;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      op({x});
      FAIL("the launch should have failed");
    } catch (const BackendError& e) {
      CHECK(std::string(e.what()).find("fixture: launch failed on purpose (the kernel of build ") != std::string::npos);
      failures.push_back(e.what());
    }
    CHECK_FALSE(op.target().has_value());
    CHECK(op.kernel_config().empty());  // nothing memoised
  }
  // Each attempt launched a kernel of its own build: the revoke dropped the first, the
  // one kept with the call's remembered check included.
  REQUIRE(failures.size() == 2);
  CHECK(failures[0] != failures[1]);
}

TEST_CASE("the CLI's failure view and the C API agree with load_failures()") {
  CHECK(tileops_load_failure_count() == load_failures().size());
  const char* path = nullptr;
  const char* stage = nullptr;
  const char* reason = nullptr;
  REQUIRE(tileops_load_failure(0, &path, &stage, &reason) == TILEOPS_OK);
  CHECK(std::string(path) == load_failures()[0].path);
  CHECK(tileops_load_failure(999, &path, &stage, &reason) == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tileops_last_error()).find("does not exist") != std::string::npos);
}
