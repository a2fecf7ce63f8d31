// The in-tree path: kernel types chosen by availability (device types,
// supported_archs), refusal and precedence (general, preferred_over), entries shared by
// build identity, device facts read per call spec, and kernel types added from
// outside entering only ops constructed afterwards; malformed registrations, and kernel
// types whose functions throw.
#include "host_memory_runtime.hpp"

#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tileops;

namespace {

const tileops_host_api* test_host = nullptr;  // saved by the entry: refusals report through it

std::atomic<int> runtime_calls{0};  // allocations of the test device types
tileops_device_runtime host_memory_runtime() { return test::host_memory_runtime(&runtime_calls); }

// ---- test kernel types: copy x to y and remember who ran --------------------------
struct TestType {
  std::string key;
  std::string device_type;
  std::vector<int32_t> archs;
  bool general = false;
  std::vector<std::string> preferred_over;
  std::string refuses;    // non-empty: refuse calls whose last dim exceeds 8 with this text
  bool identity_by_dtype = false;
  int builds = 0;
};

struct CopyKernel {
  std::string key;
};

tileops_status refusal(void* user, const tileops_call* call, tileops_error* err) {
  auto* t = static_cast<TestType*>(user);
  const auto* x = call->tensors[0];
  if (!t->refuses.empty() && x->ndim > 0 && x->shape[x->ndim - 1] > 8) {
    test_host->error_set(err, TILEOPS_ERR_UNSUPPORTED, t->refuses.c_str());
    return TILEOPS_ERR_UNSUPPORTED;
  }
  return TILEOPS_OK;
}

int32_t identity(void* user, const tileops_call* call, char* buf, size_t cap) {
  auto* t = static_cast<TestType*>(user);
  std::string id = t->key + ":" + std::to_string(call->tensors[0]->dtype.bits);
  if (id.size() + 1 > cap) return -int32_t(id.size() + 1);
  std::memcpy(buf, id.c_str(), id.size() + 1);
  return int32_t(id.size());
}

tileops_status build(void* user, const tileops_call*, tileops_kernel* out, tileops_error*) {
  auto* t = static_cast<TestType*>(user);
  ++t->builds;
  out->self = new CopyKernel{t->key};
  out->launch = [](void*, const tileops_tensor* const* in, size_t, const tileops_tensor* const* outs, size_t, void*,
                   tileops_error*) -> tileops_status {
    size_t n = 1;
    for (int32_t d = 0; d < in[0]->spec.ndim; ++d) n *= size_t(in[0]->spec.shape[d]);
    std::memcpy(outs[0]->data, in[0]->data, n * in[0]->spec.dtype.bits / 8);
    return TILEOPS_OK;
  };
  out->config_json = [](void* self) -> const char* {
    thread_local std::string text;
    text = "{\"key\":\"" + static_cast<CopyKernel*>(self)->key + "\"}";
    return text.c_str();
  };
  out->release = [](void* self) { delete static_cast<CopyKernel*>(self); };
  return TILEOPS_OK;
}

// A kernel type of SiluFwdOp that builds a copy kernel, on `n_devices` device types;
// the cases set the rest.
tileops_kernel_type silu_type(const char* key, const char* const* devices, size_t n_devices) {
  tileops_kernel_type kt{};
  kt.struct_size = sizeof kt;
  kt.op = "SiluFwdOp";
  kt.key = key;
  kt.interface = "SiluFwdOp";
  kt.devices = devices;
  kt.n_devices = n_devices;
  kt.build = build;
  return kt;
}

int facts_reads = 0;
tileops_status read_facts(void*, const tileops_device*, tileops_device_facts* out, tileops_error*) {
  ++facts_reads;
  out->arch = 90;
  out->sm_count = 8;
  out->smem_budget = 1 << 16;
  return TILEOPS_OK;
}

// Registers every type of `types` (plus runtimes for their device types, and facts of
// arch 90 for those whose names start with "selarch") through one in-process entry.
std::vector<TestType*>* pending = nullptr;
tileops_status entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*, tileops_error* err) {
  test_host = host;
  static std::vector<std::string> runtimes_done;
  for (TestType* t : *pending) {
    if (std::find(runtimes_done.begin(), runtimes_done.end(), t->device_type) == runtimes_done.end()) {
      auto rt = host_memory_runtime();
      if (host->register_device_runtime(reg, t->device_type.c_str(), &rt, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
      if (t->device_type.rfind("selarch", 0) == 0 &&
          host->register_device_facts(reg, t->device_type.c_str(), read_facts, nullptr, err) != TILEOPS_OK)
        return TILEOPS_ERR_INTERNAL;
      runtimes_done.push_back(t->device_type);
    }
    const char* devices[] = {t->device_type.c_str()};
    std::vector<const char*> preferred;
    for (const auto& p : t->preferred_over) preferred.push_back(p.c_str());
    tileops_kernel_type kt = silu_type(t->key.c_str(), devices, 1);
    kt.supported_archs = t->archs.data();
    kt.n_archs = t->archs.size();
    kt.general = t->general;
    kt.preferred_over = preferred.data();
    kt.n_preferred_over = preferred.size();
    kt.user = t;
    kt.refusal = t->refuses.empty() ? nullptr : refusal;
    kt.identity = t->identity_by_dtype ? identity : nullptr;
    if (host->register_kernel_type(reg, &kt, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
  }
  return TILEOPS_OK;
}

bool install(const char* name, std::vector<TestType*> types) {
  pending = &types;
  bool ok = load_plugin_entry(name, entry);
  pending = nullptr;
  return ok;
}

std::string ran(Op& op, const Device& device, int64_t cols = 4) {
  Tensor x = Tensor::empty({2, cols}, dtypes::float32).to(device);
  op({x});
  return op.kernel_config();
}

}  // namespace

TEST_CASE("one available implementation serves the call") {
  static TestType only{.key = "sel1_only", .device_type = "sel1"};
  REQUIRE(install("sel1", {&only}));
  Op op("SiluFwdOp");
  CHECK(ran(op, Device("sel1", 0)) == "{\"key\":\"sel1_only\"}");
  CHECK(op.target() == std::string(BUILTIN));
}

TEST_CASE("a call with too many inputs or the wrong number of output slots is refused, naming the counts") {
  static TestType only{.key = "args_only", .device_type = "args"};
  REQUIRE(install("args", {&only}));
  Op op("SiluFwdOp");
  const Tensor x = Tensor::empty({2, 4}, dtypes::float32, Device("args", 0));
  CHECK_THROWS_WITH_AS(op({x, x}), "SiluFwdOp takes 1 inputs (x), got 2", ValueError);
  Tensor two[2];
  CHECK_THROWS_WITH_AS(op.call({&x, 1}, two), "SiluFwdOp has 1 outputs, got 2 output slots", ValueError);
  Tensor one[1];
  CHECK_NOTHROW(op.call({&x, 1}, one));
  CHECK(one[0].shape()[1] == 4);
}

TEST_CASE("a general implementation loses to a specific one") {
  static TestType fallback{.key = "sel2_fallback", .device_type = "sel2", .general = true};
  static TestType specific{.key = "sel2_specific", .device_type = "sel2"};
  REQUIRE(install("sel2", {&fallback, &specific}));
  Op op("SiluFwdOp");
  CHECK(ran(op, Device("sel2", 0)) == "{\"key\":\"sel2_specific\"}");
}

TEST_CASE("preferred_over holds transitively") {
  static TestType a{.key = "sel3_a", .device_type = "sel3", .preferred_over = {"sel3_b"}};
  static TestType b{.key = "sel3_b", .device_type = "sel3", .preferred_over = {"sel3_c"}};
  static TestType c{.key = "sel3_c", .device_type = "sel3"};
  REQUIRE(install("sel3", {&c, &b, &a}));
  Op op("SiluFwdOp");
  CHECK(ran(op, Device("sel3", 0)) == "{\"key\":\"sel3_a\"}");
}

TEST_CASE("two implementations that both serve with no precedence are ambiguous") {
  static TestType a{.key = "sel4_a", .device_type = "sel4"};
  static TestType b{.key = "sel4_b", .device_type = "sel4"};
  REQUIRE(install("sel4", {&a, &b}));
  Op op("SiluFwdOp");
  CHECK_THROWS_WITH_AS(ran(op, Device("sel4", 0)),
                       "in-tree implementations of SiluFwdOp are ambiguous for this call: ['sel4_a', 'sel4_b'] all serve "
                       "it and none is preferred over the others (declare preferred_over, or general on the fallback)",
                       OpNotAvailableError);
}

TEST_CASE("refusal removes an implementation from the call; when all refuse, each limit is named") {
  static TestType narrow{.key = "sel5_narrow", .device_type = "sel5", .refuses = "sel5_narrow serves rows of at most 8, got more"};
  static TestType wide{.key = "sel5_wide", .device_type = "sel5", .general = true};
  REQUIRE(install("sel5", {&narrow, &wide}));
  Op op("SiluFwdOp");
  CHECK(ran(op, Device("sel5", 0), 4) == "{\"key\":\"sel5_narrow\"}");
  Op op2("SiluFwdOp");
  CHECK(ran(op2, Device("sel5", 0), 16) == "{\"key\":\"sel5_wide\"}");

  static TestType only_narrow{.key = "sel6_narrow", .device_type = "sel6", .refuses = "sel6_narrow serves rows of at most 8, got more"};
  REQUIRE(install("sel6", {&only_narrow}));
  Op op3("SiluFwdOp");
  CHECK_THROWS_WITH_AS(ran(op3, Device("sel6", 0), 16),
                       "no in-tree implementation of SiluFwdOp serves this call: 'sel6_narrow': sel6_narrow serves rows of "
                       "at most 8, got more",
                       OpNotAvailableError);
}

TEST_CASE("supported_archs filters by the device facts; facts are read once per call spec") {
  static TestType hopper{.key = "selarch_sm90", .device_type = "selarch", .archs = {90}};
  static TestType blackwell{.key = "selarch_sm100", .device_type = "selarch", .archs = {100}};
  REQUIRE(install("selarch", {&blackwell, &hopper}));
  Op op("SiluFwdOp");
  const int before = facts_reads;
  CHECK(ran(op, Device("selarch", 0)) == "{\"key\":\"selarch_sm90\"}");
  ran(op, Device("selarch", 0));
  CHECK(facts_reads == before + 1);  // the second call hit the memo
  ran(op, Device("selarch", 0), 5);
  CHECK(facts_reads == before + 2);  // a new call spec reads again
}

TEST_CASE("an implementation for other archs, or with archs on a device type without facts, is not available; the call names each") {
  static TestType future{.key = "selarch2_sm100", .device_type = "selarch2", .archs = {100, 103}};
  static TestType factless{.key = "archless_sm90", .device_type = "archless", .archs = {90}};
  REQUIRE(install("selarch2", {&future}));
  REQUIRE(install("archless", {&factless}));
  const std::pair<const char*, const char*> cases[] = {
      {"selarch2",
       "no in-tree implementation of SiluFwdOp runs on selarch2:0 (arch 90): 'selarch2_sm100' supports archs 100, 103"},
      {"archless",
       "no in-tree implementation of SiluFwdOp runs on archless:0 (no arch: its device facts give none): "
       "'archless_sm90' supports archs 90"}};
  for (const auto& [device, message] : cases) {
    CAPTURE(device);
    Op op("SiluFwdOp");
    CHECK_THROWS_WITH_AS(ran(op, Device(device, 0)), message, OpNotAvailableError);
  }
}

TEST_CASE("entries are shared by build identity") {
  static TestType shared{.key = "sel7_shared", .device_type = "sel7", .identity_by_dtype = true};
  REQUIRE(install("sel7", {&shared}));
  Op op("SiluFwdOp");
  ran(op, Device("sel7", 0), 4);
  ran(op, Device("sel7", 0), 5);  // another call spec, the same identity (dtype only)
  CHECK(shared.builds == 1);
}

TEST_CASE("a kernel type added from outside enters only ops constructed afterwards; keys are unique") {
  static TestType first{.key = "sel8_first", .device_type = "sel8"};
  REQUIRE(install("sel8", {&first}));
  Op before("SiluFwdOp");
  static TestType better{.key = "sel8_better", .device_type = "sel8", .preferred_over = {"sel8_first"}};
  REQUIRE(install("sel8-extra", {&better}));
  Op after("SiluFwdOp");
  CHECK(ran(before, Device("sel8", 0)) == "{\"key\":\"sel8_first\"}");
  CHECK(ran(after, Device("sel8", 0)) == "{\"key\":\"sel8_better\"}");
  static TestType clash{.key = "sel8_first", .device_type = "sel8"};
  CHECK_FALSE(install("sel8-clash", {&clash}));
  auto failures = load_failures();
  REQUIRE_FALSE(failures.empty());
  CHECK(failures.back().reason.find("SiluFwdOp already has a kernel type 'sel8_first'") != std::string::npos);
}

TEST_CASE("nothing on the call path queries hardware before the target is settled") {
  const int facts_before = facts_reads;
  const int runtime_before = runtime_calls;
  Op op("SiluFwdOp");  // construction: no device at all
  CHECK(facts_reads == facts_before);
  CHECK(runtime_calls == runtime_before);
  Tensor x = Tensor::empty({2, 3}, dtypes::float32);  // a CPU tensor: detection picks cpu_ref
  op({x});
  CHECK(facts_reads == facts_before);  // cpu_ref's path reads no device facts
  CHECK(op.target() == "cpu_ref");
}

TEST_CASE("an entry linked into the process registers like a plugin file") {
  static auto entry = [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
                         tileops_error* err) -> tileops_status {
    info->name = "inproc";
    return host->register_detector(reg, "inproc", [](void*, const tileops_device* d) -> int32_t {
      return std::string_view(d->type) == "inprocdev";
    }, nullptr, err);
  };
  CHECK(load_plugin_entry("inproc", +entry));
  auto targets = registered_targets();
  CHECK(std::find(targets.begin(), targets.end(), "inproc") != targets.end());
  // The same target again is refused, and recorded as a failure of stage register.
  CHECK_FALSE(load_plugin_entry("inproc-again", +entry));
  auto failures = load_failures();
  auto it = std::find_if(failures.begin(), failures.end(), [](auto& f) { return f.path == "<inproc-again>"; });
  REQUIRE(it != failures.end());
  CHECK(it->stage == "register");
  CHECK(it->reason == "target 'inproc' already has a detector (registered by <inproc>); a target is one set of kernels from one provider");
}

TEST_CASE("the host's current_stream answers a device's stream, and the default for a NULL device or type") {
  static const tileops_host_api* host_api = nullptr;
  static auto entry = [](const tileops_host_api* host, tileops_registrar*, tileops_plugin_info* info,
                         tileops_error*) -> tileops_status {
    host_api = host;
    info->name = "stream-asker";
    return TILEOPS_OK;
  };
  REQUIRE(load_plugin_entry("stream-asker", +entry));
  int stream = 0;
  StreamGuard guard(Device::cpu(), &stream);
  const tileops_device cpu = Device::cpu().to_c();
  CHECK(host_api->current_stream(&cpu) == &stream);
  const tileops_device untyped{nullptr, 0};
  CHECK(host_api->current_stream(&untyped) == nullptr);
  CHECK(host_api->current_stream(nullptr) == nullptr);
}

namespace {

// What the host said when it refused the entry `name` (its recorded load failure).
std::string refusal_of(const char* name, tileops_plugin_entry_fn entry) {
  if (load_plugin_entry(name, entry)) return "loaded";
  const auto failures = load_failures();
  const std::string path = std::string("<") + name + ">";
  for (const auto& f : failures)
    if (f.path == path) return f.reason;
  return "no failure recorded";
}

// A kernel type of SiluFwdOp on "malformed" whose fields each case then spoils.
tileops_kernel_type well_formed_type() {
  static const char* const devices[] = {"malformed"};
  return silu_type("malformed_silu", devices, 1);
}

// Registers kernel type `key` of SiluFwdOp on "cycle", preferred over `over`.
tileops_status register_preferring(const tileops_host_api* host, tileops_registrar* reg, tileops_error* err,
                                   const char* key, const char* over) {
  static const char* const devices[] = {"cycle"};
  const char* const preferred[] = {over};
  auto t = silu_type(key, devices, 1);
  t.preferred_over = preferred;
  t.n_preferred_over = 1;
  return host->register_kernel_type(reg, &t, err);
}

}  // namespace

TEST_CASE("malformed registrations are refused, naming what is missing, and the plugin is rolled back") {
  CHECK(refusal_of("runtime-without-copy", [](const tileops_host_api* host, tileops_registrar* reg,
                                              tileops_plugin_info*, tileops_error* err) {
          auto rt = host_memory_runtime();
          rt.copy = nullptr;
          return host->register_device_runtime(reg, "malformed", &rt, err);
        }) == "register_device_runtime('malformed'): alloc, free, copy and synchronize are required");
  CHECK(refusal_of("runtime-too-small", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                           tileops_error* err) {
          auto rt = host_memory_runtime();
          rt.struct_size = offsetof(tileops_device_runtime, synchronize);  // a struct that ends before synchronize
          return host->register_device_runtime(reg, "malformed", &rt, err);
        }) == "register_device_runtime('malformed'): alloc, free, copy and synchronize are required");
  CHECK(refusal_of("type-without-build", [](const tileops_host_api* host, tileops_registrar* reg,
                                            tileops_plugin_info*, tileops_error* err) {
          auto kt = well_formed_type();
          kt.build = nullptr;
          return host->register_kernel_type(reg, &kt, err);
        }) == "register_kernel_type: op, key, interface and build are required");
  const char* const counted_without_items =
      "kernel type 'malformed_silu' of SiluFwdOp: devices, supported_archs and preferred_over must point at their "
      "counts of items";
  CHECK(refusal_of("type-devices-null", [](const tileops_host_api* host, tileops_registrar* reg,
                                           tileops_plugin_info*, tileops_error* err) {
          auto kt = well_formed_type();
          kt.devices = nullptr;
          return host->register_kernel_type(reg, &kt, err);
        }) == counted_without_items);
  CHECK(refusal_of("type-archs-null", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                         tileops_error* err) {
          auto kt = well_formed_type();
          kt.n_archs = 2;
          return host->register_kernel_type(reg, &kt, err);
        }) == counted_without_items);
  CHECK(refusal_of("type-preferred-null", [](const tileops_host_api* host, tileops_registrar* reg,
                                             tileops_plugin_info*, tileops_error* err) {
          auto kt = well_formed_type();
          kt.n_preferred_over = 1;
          return host->register_kernel_type(reg, &kt, err);
        }) == counted_without_items);
  CHECK(refusal_of("type-other-interface", [](const tileops_host_api* host, tileops_registrar* reg,
                                              tileops_plugin_info*, tileops_error* err) {
          auto kt = well_formed_type();
          kt.interface = "GeluFwdOp";
          return host->register_kernel_type(reg, &kt, err);
        }) == "kernel type 'malformed_silu' of SiluFwdOp implements interface 'GeluFwdOp'; SiluFwdOp's in-tree "
              "forward calls only the interface 'SiluFwdOp'");
  static const int32_t sm90[] = {90};
  static const char* const two_devices[] = {"malformed", "malformed2"};
  for (size_t n_devices : {size_t(0), size_t(2)}) {
    CAPTURE(n_devices);
    static size_t devices_given;
    devices_given = n_devices;
    const char* const name = n_devices == 0 ? "type-archs-no-device" : "type-archs-two-devices";
    CHECK(refusal_of(name, [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                              tileops_error* err) {
            auto kt = silu_type("malformed_silu", two_devices, devices_given);
            kt.supported_archs = sm90;
            kt.n_archs = 1;
            return host->register_kernel_type(reg, &kt, err);
          }) == "kernel type 'malformed_silu' of SiluFwdOp declares supported_archs, so it must list exactly one "
                "device type, got " + std::to_string(n_devices));
  }
  // Facts belong to a device type: a second reader is refused, in the same plugin or
  // in another.
  static const auto read = [](void*, const tileops_device*, tileops_device_facts*, tileops_error*) -> tileops_status {
    return TILEOPS_OK;
  };
  CHECK(refusal_of("facts-twice", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                     tileops_error* err) {
          if (host->register_device_facts(reg, "malformed", +read, nullptr, err) != TILEOPS_OK)
            return TILEOPS_ERR_INTERNAL;
          return host->register_device_facts(reg, "malformed", +read, nullptr, err);
        }) == "register_device_facts: device type 'malformed' already has a facts reader (registered by "
              "<facts-twice>); facts belong to a device type, not a target");
  CHECK(refusal_of("facts-first", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                     tileops_error* err) {
          return host->register_device_facts(reg, "facts_kept", +read, nullptr, err);
        }) == "loaded");
  CHECK(refusal_of("facts-second", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                      tileops_error* err) {
          return host->register_device_facts(reg, "facts_kept", +read, nullptr, err);
        }) == "register_device_facts: device type 'facts_kept' already has a facts reader (registered by "
              "<facts-first>); facts belong to a device type, not a target");
  // A refused registration takes the whole plugin with it: nothing of "malformed" stays.
  CHECK_THROWS_AS(Tensor::empty({2}, dtypes::float32, Device("malformed", 0)), BackendError);
}

TEST_CASE("a kernel type whose preferred_over closes a cycle is refused, naming the cycle, and its plugin rolled back") {
  static const char* const devices[] = {"cycle"};
  // Within one plugin, and a type preferred over itself.
  CHECK(refusal_of("cycle-in-one", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                      tileops_error* err) {
          static const char* const over_b[] = {"cyc_b"};
          static const char* const over_a[] = {"cyc_a"};
          auto a = silu_type("cyc_a", devices, 1), b = silu_type("cyc_b", devices, 1);
          a.preferred_over = over_b;
          a.n_preferred_over = b.n_preferred_over = 1;
          b.preferred_over = over_a;
          if (host->register_kernel_type(reg, &a, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
          return host->register_kernel_type(reg, &b, err);
        }) == "kernel type 'cyc_b' of SiluFwdOp: its preferred_over closes a cycle ('cyc_b' over 'cyc_a' over "
              "'cyc_b'), which would leave none preferred");
  CHECK(refusal_of("cycle-of-one", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                      tileops_error* err) {
          return register_preferring(host, reg, err, "cyc_self", "cyc_self");
        }) == "kernel type 'cyc_self' of SiluFwdOp: its preferred_over closes a cycle ('cyc_self' over 'cyc_self'), "
              "which would leave none preferred");
  // Across plugins: the first loads ('cyc_a' over 'cyc_b' over 'cyc_c', whose 'cyc_c' is
  // not there; its 'cyc_a' loads, so the refused plugin above left nothing behind), the
  // second would close the chain and rolls back; the first's types still serve.
  static TestType kept{"cyc_a", "cycle"};
  CHECK(refusal_of("cycle-chain", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                     tileops_error* err) {
          test_host = host;
          static const char* const over_b[] = {"cyc_b"};
          static const char* const over_c[] = {"cyc_c"};
          auto rt = host_memory_runtime();
          auto a = silu_type("cyc_a", devices, 1), b = silu_type("cyc_b", devices, 1);
          a.preferred_over = over_b;
          b.preferred_over = over_c;
          a.n_preferred_over = b.n_preferred_over = 1;
          a.user = b.user = &kept;
          if (host->register_device_runtime(reg, "cycle", &rt, err) != TILEOPS_OK ||
              host->register_kernel_type(reg, &a, err) != TILEOPS_OK)
            return TILEOPS_ERR_INTERNAL;
          return host->register_kernel_type(reg, &b, err);
        }) == "loaded");
  CHECK(refusal_of("cycle-closer", [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                                      tileops_error* err) {
          return register_preferring(host, reg, err, "cyc_c", "cyc_a");
        }) == "kernel type 'cyc_c' of SiluFwdOp: its preferred_over closes a cycle ('cyc_c' over 'cyc_a' over "
              "'cyc_b' over 'cyc_c'), which would leave none preferred");
  Op op("SiluFwdOp");
  CHECK_NOTHROW(op({Tensor::empty({2, 4}, dtypes::float32, Device("cycle", 0))}));
  CHECK(op.kernel_config() == R"({"key":"cyc_a"})");
}

TEST_CASE("a device facts reader that throws, fails or returns negative facts fails the call with a BackendError") {
  // Three device types served by one working kernel type of SiluFwdOp, each with a facts
  // reader that goes wrong its own way: in-tree kernels read the facts before choosing a
  // type, so the call fails there.
  static auto entry = [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                         tileops_error* err) -> tileops_status {
    test_host = host;
    using Reader = tileops_status (*)(void*, const tileops_device*, tileops_device_facts*, tileops_error*);
    static const char* const devices[3] = {"facts_throw", "facts_fail", "facts_negative"};
    const Reader readers[3] = {
        [](void*, const tileops_device*, tileops_device_facts*, tileops_error*) -> tileops_status {
          throw std::runtime_error("no such board");
        },
        [](void*, const tileops_device*, tileops_device_facts*, tileops_error* e) -> tileops_status {
          test_host->error_set(e, TILEOPS_ERR_DEVICE, "board offline");
          return TILEOPS_ERR_DEVICE;
        },
        [](void*, const tileops_device*, tileops_device_facts* out, tileops_error*) -> tileops_status {
          out->sm_count = -3;
          return TILEOPS_OK;
        }};
    for (int i = 0; i < 3; ++i) {
      auto rt = host_memory_runtime();
      if (host->register_device_runtime(reg, devices[i], &rt, err) != TILEOPS_OK ||
          host->register_device_facts(reg, devices[i], readers[i], nullptr, err) != TILEOPS_OK)
        return TILEOPS_ERR_INTERNAL;
    }
    static TestType type{"facts_ok", "facts_throw"};
    tileops_kernel_type kt = silu_type("facts_ok", devices, 3);
    kt.user = &type;
    return host->register_kernel_type(reg, &kt, err);
  };
  REQUIRE(load_plugin_entry("facts", +entry));
  const std::pair<const char*, const char*> cases[] = {
      {"facts_throw", "threw for facts_throw:0: no such board"},
      {"facts_fail", "failed for facts_fail:0: board offline"},
      {"facts_negative",
       "returned invalid facts for facts_negative:0: sm_count -3, smem_budget 0 (neither may be negative)"}};
  for (const auto& [device, what] : cases) {
    CAPTURE(device);
    Op op("SiluFwdOp");
    Tensor x = Tensor::empty({2, 4}, dtypes::float32, Device(device, 0));
    const std::string message =
        std::string("the device facts reader of '") + device + "' (registered by <facts>) " + what;
    CHECK_THROWS_WITH_AS(op({x}), message.c_str(), BackendError);
  }
}

TEST_CASE("a kernel type whose build returns an error fails the call with its status's error and message") {
  static auto entry = [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                         tileops_error* err) -> tileops_status {
    test_host = host;
    static const char* const devices[] = {"build_fails"};
    auto rt = host_memory_runtime();
    auto kt = silu_type("build_fails", devices, 1);
    kt.build = [](void*, const tileops_call*, tileops_kernel*, tileops_error* e) -> tileops_status {
      test_host->error_set(e, TILEOPS_ERR_UNSUPPORTED, "no kernel for rows of 4");
      return TILEOPS_ERR_UNSUPPORTED;
    };
    if (host->register_device_runtime(reg, "build_fails", &rt, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
    return host->register_kernel_type(reg, &kt, err);
  };
  REQUIRE(load_plugin_entry("build-fails", +entry));
  Op op("SiluFwdOp");
  CHECK_THROWS_WITH_AS(op({Tensor::empty({2, 4}, dtypes::float32, Device("build_fails", 0))}),
                       "kernel type 'build_fails' of SiluFwdOp could not build a kernel: no kernel for rows of 4",
                       OpNotAvailableError);
}

TEST_CASE("a kernel type whose refusal, identity or build throws fails the call with a BackendError naming it") {
  // Three kernel types of SiluFwdOp, each alone on a device type of its own, each with one
  // function that throws (a C++ plugin letting an exception cross the C ABI).
  static auto entry = [](const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*,
                         tileops_error* err) -> tileops_status {
    test_host = host;
    static const char* const devices[3][1] = {{"throws_refusal"}, {"throws_identity"}, {"throws_build"}};
    static const char* const keys[3] = {"refusal_throws", "identity_throws", "build_throws"};
    for (int i = 0; i < 3; ++i) {
      auto rt = host_memory_runtime();
      if (host->register_device_runtime(reg, devices[i][0], &rt, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
      tileops_kernel_type kt = silu_type(keys[i], devices[i], 1);
      kt.refusal = [](void*, const tileops_call*, tileops_error*) -> tileops_status { throw std::runtime_error("r"); };
      kt.identity = [](void*, const tileops_call*, char*, size_t) -> int32_t { throw std::runtime_error("i"); };
      kt.build = [](void*, const tileops_call*, tileops_kernel*, tileops_error*) -> tileops_status {
        throw std::runtime_error("b");
      };
      if (i > 0) kt.refusal = nullptr;
      if (i > 1) kt.identity = nullptr;
      if (host->register_kernel_type(reg, &kt, err) != TILEOPS_OK) return TILEOPS_ERR_INTERNAL;
    }
    return TILEOPS_OK;
  };
  REQUIRE(load_plugin_entry("throwing", +entry));
  const std::pair<const char*, const char*> cases[] = {
      {"throws_refusal", "the refusal of kernel type 'refusal_throws' of SiluFwdOp threw: r"},
      {"throws_identity", "the identity of kernel type 'identity_throws' of SiluFwdOp threw: i"},
      {"throws_build", "kernel type 'build_throws' of SiluFwdOp: build threw: b"}};
  for (const auto& [device, message] : cases) {
    CAPTURE(device);
    Op op("SiluFwdOp");
    Tensor x = Tensor::empty({2, 4}, dtypes::float32, Device(device, 0));
    CHECK_THROWS_WITH_AS(op({x}), message, BackendError);
  }
}
