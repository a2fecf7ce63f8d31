// A vendor .so dropped into a plugin directory is discovered, registered and asked
// about devices through detect, with the device passed unchanged.
#include "acme_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace tileops;
using namespace acme_test;

TEST_CASE("the acme plugin is found in TILEOPS_PLUGIN_PATH and loaded") {
  auto list = plugins();
  auto acme = std::find_if(list.begin(), list.end(), [](auto& p) { return p.name == "acme"; });
  REQUIRE(acme != list.end());
  CHECK(acme->state == "loaded");
  CHECK(acme->version == "1.0.0");
  CHECK(acme->abi_version == TILEOPS_ABI_VERSION);
  CHECK_FALSE(acme->builtin);
  CHECK(acme->targets == std::vector<std::string>{"acme"});
  CHECK(acme->ops == std::vector<std::string>{"RMSNormFwdOp", "SoftmaxFwdOp"});
  CHECK(acme->device_types == std::vector<std::string>{"acme"});
  CHECK(load_failures().empty());
}

TEST_CASE("registered_targets lists every target, and those serving an op") {
  auto all = registered_targets();
  CHECK(std::find(all.begin(), all.end(), "acme") != all.end());
  CHECK(std::find(all.begin(), all.end(), "cpu_ref") != all.end());
  CHECK(registered_targets("SoftmaxFwdOp") == std::vector<std::string>{"acme", "cpu_ref"});
  CHECK(registered_targets("NoSuchOp").empty());
}

TEST_CASE("detect receives the device unchanged: acme:1 builds on acme:1") {
  Op op("SoftmaxFwdOp");
  Tensor y = op({on_acme(random_cpu({2, 8}, 11), 1)})[0];
  CHECK(y.device() == Device("acme", 1));
  auto cfg = config(op);
  CHECK(cfg["device"] == "acme:1");
  CHECK(cfg["current_at_build"] == 1);  // the builder ran with acme:1 current
}

TEST_CASE("CPU tensors still go to cpu_ref: detection picks per device") {
  Op op("SoftmaxFwdOp");
  op({random_cpu({2, 8}, 12)});
  CHECK(op.target() == "cpu_ref");
}
