// The `tileops` CLI as a user sees it: each test runs the binary (popen) with a chosen
// TILEOPS_PLUGIN_PATH and checks its exit status, text and JSON documents.
#include "process.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

const std::string kZoo = TILEOPS_FIXTURE_ZOO_DIR;
const std::string kVendor = TILEOPS_FIXTURE_VENDOR_DIR;
const std::string kZooAndVendor = kZoo + ":" + kVendor;

cli_test::Result tileops(const std::string& args, const std::string& plugin_path = "", bool merge_stderr = true) {
  const std::string command =
      "env -u TILEOPS_FIXTURE_BADLAUNCH " + cli_test::cli_command(TILEOPS_CLI, plugin_path, args, merge_stderr);
  return cli_test::run(command);
}

// Runs a --json command (stderr dropped) and parses its output.
json tileops_json(const std::string& args, const std::string& plugin_path = "") {
  auto r = tileops(args, plugin_path, false);
  INFO("tileops " << args << "\n" << r.out);
  REQUIRE(r.status == 0);
  json doc;
  REQUIRE_NOTHROW(doc = json::parse(r.out));
  return doc;
}

const json* plugin_named(const json& doc, const std::string& name) {
  for (const auto& p : doc["plugins"])
    if (p["name"] == name) return &p;
  return nullptr;
}

std::vector<std::string> strings(const json& j) { return j.get<std::vector<std::string>>(); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every op of the manifest that is not a composite: what cpu_ref registers builders for,
// sorted by byte value as `plugins` lists them.
std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}
const std::vector<std::string> kCpuRefOps = sorted({
    "AddFwdOp", "AmaxFwdOp", "ArgmaxFwdOp", "BmmFwdOp", "CumsumFwdOp", "FusedAddRMSNormFwdOp",
    "GeluAndMulFwdOp", "GeluFwdOp", "GemmFwdOp", "GroupNormFwdOp",
    "GroupedQueryAttentionDecodePagedFwdOp", "GroupedQueryAttentionFwdOp", "LayerNormFwdOp",
    "LogSoftmaxFwdOp", "MeanFwdOp", "MulFwdOp", "RMSNormFwdOp", "RoPEFwdOp", "ReluFwdOp",
    "SigmoidFwdOp", "SiluAndMulFwdOp", "SiluFwdOp", "SoftmaxFwdOp", "SumFwdOp"});

// The zoo fixtures that fail to load, with the stage and substrings of the reason
// (tests/fixtures/README.md).
struct Broken {
  std::string stage;
  std::vector<std::string> reason_contains;
};
const std::map<std::string, Broken> kBroken = {
    {"not_a_library.so", {"open", {"invalid ELF header"}}},
    {"wrong_arch.so", {"open", {"aarch64"}}},
    {"missing_dependency.so", {"open", {"libtileops_fixture_absent_dep.so"}}},
    {"no_entry_symbol.so", {"symbol", {"tileops_plugin_entry"}}},
    {"no_abi_version_symbol.so", {"symbol", {"tileops_plugin_abi_version"}}},
    {"abi_from_future.so", {"abi_version", {"2.0", "1.0"}}},
    {"entry_returns_error.so", {"entry", {"fixture: the vendor runtime is not initialised"}}},
    {"entry_fails_silently.so", {"entry", {"device error (status 5; the backend gave no message)"}}},
    {"entry_throws.so", {"entry", {"fixture: entry threw"}}},
    {"half_registered.so", {"entry", {"fixture: failed after registering half"}}},
    {"duplicate_target_b.so", {"register", {"SoftmaxFwdOp", "dup"}}},
    {"unknown_op.so", {"register", {"RMSNormFwOp", "RMSNormFwdOp"}}},
    {"duplicate_device_facts.so", {"register", {"cuda"}}},
};

}  // namespace

// ---- plugins ---------------------------------------------------------------------------

TEST_CASE("tileops plugins --json: cpu_ref loaded from the default plugin directory, with its ops") {
  const json doc = tileops_json("plugins --json");
  CHECK(doc["schema"] == "tileops.plugins/1");
  const json* cpu_ref = plugin_named(doc, "cpu_ref");
  REQUIRE(cpu_ref != nullptr);
  const json& p = *cpu_ref;
  CHECK(p["state"] == "loaded");
  CHECK(p["builtin"] == false);
  CHECK(p["abi_version"] == "1.0");
  CHECK(p["path"] == std::string(TILEOPS_CLI_PLUGIN_DIR) + "/libtileops_cpu_ref.so");
  CHECK_FALSE(p["version"].get<std::string>().empty());
  CHECK(strings(p["targets"]) == std::vector<std::string>{"cpu_ref"});
  CHECK(strings(p["ops"]) == kCpuRefOps);
  CHECK(p["kernel_types"].empty());
  CHECK(p["device_types"].empty());
  for (const auto& q : doc["plugins"]) CHECK(q["state"] == "loaded");  // nothing failed by default
  // the text form
  auto text = tileops("plugins");
  CHECK(text.status == 0);
  CHECK(contains(text.out, "cpu_ref " + p["version"].get<std::string>() + "  [loaded]\n  path:     " +
                               p["path"].get<std::string>() + "\n  abi:      1.0\n  targets:  cpu_ref\n"));
}

TEST_CASE("tileops plugins --json with the zoo and the vendor fixtures: acme and cpu_ref still load") {
  const json doc = tileops_json("plugins --json", kZooAndVendor);
  const json* acme = plugin_named(doc, "acme");
  REQUIRE(acme != nullptr);
  CHECK((*acme)["state"] == "loaded");
  CHECK((*acme)["path"] == kVendor + "/libtileops_acme.so");
  CHECK((*acme)["version"] == "1.0.0");
  CHECK((*acme)["build_id"] == "fixture");
  CHECK(strings((*acme)["targets"]) == std::vector<std::string>{"acme"});
  CHECK(strings((*acme)["ops"]) == std::vector<std::string>{"RMSNormFwdOp", "SoftmaxFwdOp"});
  CHECK(strings((*acme)["device_types"]) == std::vector<std::string>{"acme"});
  const json* extra = plugin_named(doc, "acme_extra");
  REQUIRE(extra != nullptr);
  CHECK((*extra)["state"] == "loaded");
  CHECK(strings((*extra)["kernel_types"]) == std::vector<std::string>{"RMSNormFwdOp/acme_rms_norm_tiny"});
  const json* cpu_ref = plugin_named(doc, "cpu_ref");
  REQUIRE(cpu_ref != nullptr);
  CHECK((*cpu_ref)["state"] == "loaded");
  CHECK(strings((*cpu_ref)["ops"]) == kCpuRefOps);

  // every broken fixture is listed as failed, with empty fields beside its path
  std::set<std::string> failed;
  for (const auto& p : doc["plugins"]) {
    if (p["state"] != "failed") continue;
    const std::string path = p["path"];
    failed.insert(path.substr(path.rfind('/') + 1));
    CHECK(p["name"] == "");
    CHECK(p["targets"].empty());
    CHECK(p["ops"].empty());
  }
  std::set<std::string> expected;
  for (const auto& [file, broken] : kBroken) expected.insert(file);
  CHECK(failed == expected);
  // the zoo's fixtures that load and misbehave later are loaded
  for (const char* name : {"duplicate_target_a", "claims_everything", "non_callable_kernel", "failing_launch"}) {
    INFO(name);
    bool loaded = false;
    for (const auto& p : doc["plugins"])
      loaded |= p["path"] == kZoo + "/" + name + ".so" && p["state"] == "loaded";
    CHECK(loaded);
  }
}

// ---- failures --------------------------------------------------------------------------

TEST_CASE("tileops failures: 'no load failures' and status 0 by default") {
  auto r = tileops("failures");
  CHECK(r.status == 0);
  CHECK(r.out == "no load failures\n");
  const json doc = tileops_json("failures --json");
  CHECK(doc == json::parse(R"({"schema": "tileops.failures/1", "failures": []})"));
}

TEST_CASE("tileops failures --json with the zoo: every broken fixture with its stage and reason") {
  const json doc = tileops_json("failures --json", kZooAndVendor);
  CHECK(doc["schema"] == "tileops.failures/1");
  std::map<std::string, json> by_file;
  for (const auto& f : doc["failures"]) {
    const std::string path = f["path"];
    CHECK(path.rfind(kZoo + "/", 0) == 0);  // nothing from the vendor directory failed
    by_file[path.substr(path.rfind('/') + 1)] = f;
  }
  CHECK(by_file.size() == kBroken.size());
  CHECK(doc["failures"].size() == kBroken.size());  // each failure recorded once
  for (const auto& [file, broken] : kBroken) {
    INFO(file);
    REQUIRE(by_file.count(file) == 1);
    const json& f = by_file[file];
    CHECK(f["stage"] == broken.stage);
    const std::string reason = f["reason"];
    for (const auto& part : broken.reason_contains) CHECK_MESSAGE(contains(reason, part), reason);
  }
  // the text form lists the same, status 0
  auto text = tileops("failures", kZooAndVendor);
  CHECK(text.status == 0);
  CHECK(contains(text.out, kZoo + "/abi_from_future.so\n  stage:  abi_version\n  reason: "));
  CHECK(contains(text.out,
                 kZoo + "/entry_throws.so\n  stage:  entry\n  reason: entry threw: fixture: entry threw\n"));
}

// ---- targets ---------------------------------------------------------------------------

TEST_CASE("tileops targets [OP] --json") {
  CHECK(tileops_json("targets RMSNormFwdOp --json") ==
        json::parse(R"({"schema": "tileops.targets/1", "op": "RMSNormFwdOp", "targets": ["cpu_ref"], "default": null})"));
  CHECK(tileops_json("targets --json") ==
        json::parse(R"({"schema": "tileops.targets/1", "op": null, "targets": ["cpu_ref"], "default": null})"));
  CHECK(tileops_json("targets RMSNormFwdOp --json", kVendor)["targets"] == json::parse(R"(["acme", "cpu_ref"])"));
  CHECK(tileops_json("targets GemmFwdOp --json", kVendor)["targets"] == json::parse(R"(["cpu_ref"])"));
  // a composite: no target registers a builder, the host composes it
  CHECK(tileops_json("targets SwiGLUMLPFwdOp --json")["targets"] == json::array());
  auto text = tileops("targets SoftmaxFwdOp", kVendor);
  CHECK(text.status == 0);
  CHECK(text.out == "acme\ncpu_ref\n");
  auto none = tileops("targets SwiGLUMLPFwdOp");
  CHECK(none.status == 0);
  CHECK(none.out == "no targets serve SwiGLUMLPFwdOp\n");
}

TEST_CASE("tileops targets of an op the manifest does not name fails and says so") {
  const auto r = tileops("targets RMSNormFwdOpp");
  CHECK(r.status != 0);
  CHECK(r.out == "ValueError: unknown op 'RMSNormFwdOpp'; did you mean RMSNormFwdOp, GroupNormFwdOp, BmmFwdOp?\n");
}

// ---- version and doctor ----------------------------------------------------------------

const std::string kVersionLine = std::string("tileops ") + TILEOPS_CLI_VERSION + " (plugin ABI 1.0)";

TEST_CASE("tileops --version: the runtime's version and plugin ABI") {
  auto r = tileops("--version", kVendor);
  CHECK(r.status == 0);
  CHECK(r.out == kVersionLine + "\n");
}

TEST_CASE("tileops doctor: the runtime's version, the plugin directories in search order, what loaded") {
  const std::string missing = "/nonexistent/tileops-plugins";
  auto r = tileops("doctor", kVendor + ":" + missing);
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.rfind(kVersionLine + "\n", 0) == 0);
  const std::string dirs = "plugin directories, in search order:\n  " + std::string(TILEOPS_CLI_LIB_DIR) + "\n  " +
                           kVendor + "\n  " + missing + "  (missing)\n  " + TILEOPS_CLI_PLUGIN_DIR + "\n";
  CHECK(contains(r.out, dirs));
  // what loaded agrees with `tileops plugins`
  const json doc = tileops_json("plugins --json", kVendor + ":" + missing);
  size_t loaded = 0;
  for (const auto& p : doc["plugins"]) loaded += p["state"] == "loaded";
  CHECK(contains(r.out, "\nplugins: " + std::to_string(loaded) + " loaded, 0 load failure(s) (see `tileops failures`)\n"));
  CHECK(contains(r.out, "\n  acme 1.0.0\n"));
  CHECK(contains(r.out, "\ntargets: acme, cpu_ref\n"));
  CHECK(contains(r.out, "\nCUDA driver: "));
  CHECK(contains(r.out, "\nNVRTC:       "));

  auto zoo = tileops("doctor", kZooAndVendor);
  CHECK(zoo.status == 0);
  CHECK(contains(zoo.out, "loaded, " + std::to_string(kBroken.size()) + " load failure(s)"));
}

// ---- validate --------------------------------------------------------------------------

TEST_CASE("tileops validate: the shipped specs pass") {
  auto r = tileops("validate");
  CHECK(r.status == 0);
  CHECK(r.out == "25 specs, 0 problem(s)\n");
  auto dir = tileops(std::string("validate ") + cli_test::quote(TILEOPS_CLI_SPEC_DIR));
  CHECK(dir.status == 0);
  CHECK(dir.out == "25 specs, 0 problem(s)\n");
}

TEST_CASE("tileops validate DIR: a bad spec directory fails with the problems printed") {
  const std::string dir = TILEOPS_CLI_BAD_SPEC_DIR;
  auto r = tileops("validate " + cli_test::quote(dir));
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out == dir + "/norm.yaml:17: XFwdOp: [workload] row 'bad-groups': shape rule 'M % groups == 0' fails: M = 5, "
                       "groups = 2\n" +
                     dir + "/norm.yaml:4: XFwdOp: [served] status is implemented, but neither the in-tree path nor a "
                           "shipped plugin serves it\n"
                           "1 specs, 2 problem(s)\n");

  auto missing = tileops("validate /nonexistent/spec-dir");
  CHECK(missing.status == 1);
  CHECK(contains(missing.out, "SpecError: invalid manifest: 1 problem\n/nonexistent/spec-dir: cannot read the spec "
                              "directory: No such file or directory\n"));
}

// ---- run -------------------------------------------------------------------------------

TEST_CASE("tileops run --list, and run's errors") {
  auto list = tileops("run RMSNormFwdOp --list");
  CHECK(list.status == 0);
  CHECK(list.out.rfind("llama3-8b-prefill-float16\nllama3-8b-prefill-bfloat16\n", 0) == 0);
  CHECK(contains(list.out, "\nmem-8192x8192-float32\n"));
  CHECK(std::count(list.out.begin(), list.out.end(), '\n') == 11);  // 5 rows: 2 + 2 + 2 + 2 + 3 dtype cases

  auto rope = tileops("run RoPEFwdOp --list");
  CHECK(rope.status == 0);
  CHECK(contains(rope.out, "chatglm3-6b-q-prefill-float32-int32\n"));

  auto bad_case = tileops("run RMSNormFwdOp --case nope");
  CHECK(bad_case.status == 1);
  CHECK(bad_case.out.rfind("ValueError: no workload case 'nope'; the cases are: llama3-8b-prefill-float16, ", 0) == 0);

  auto bad_op = tileops("run RMSNormFwOp --list");
  CHECK(bad_op.status == 1);
  CHECK(bad_op.out.rfind("ValueError: unknown op 'RMSNormFwOp'; did you mean RMSNormFwdOp", 0) == 0);

  auto bad_shape = tileops("run RMSNormFwdOp --shape y=3x4096");
  CHECK(bad_shape.status == 1);
  CHECK(bad_shape.out == "ValueError: RMSNormFwdOp has no input 'y'; its inputs are x, weight\n");

  // a shape the signature refuses: the manifest's check reaches the user
  auto mismatch = tileops("run RMSNormFwdOp --shape x=3x8");
  CHECK(mismatch.status == 1);
  CHECK(contains(mismatch.out, "ValueError: RMSNormFwdOp: input 'x' has shape [3, 8]; the signature needs "
                               "[*B, *normalized_shape] = [3, 4096]\n"));
}

TEST_CASE("tileops run --shape supplies an optional input the case omits, in the op's dtype") {
  auto r = tileops("run RMSNormFwdOp --case mem-8192x8192-float16 --shape x=2x8192 --shape weight=8192 --repeat 1");
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(contains(r.out, "  input  weight: float16[8192] on cpu "));
  CHECK(contains(r.out, "  target cpu_ref\n"));
}

TEST_CASE("tileops run --shape: index inputs are drawn for the shapes given") {
  SUBCASE("RoPE positions in [0, P), P the rows of the cos_sin_cache given") {
    auto r = tileops("run RoPEFwdOp --case chatglm3-6b-q-prefill-float32-int32 --shape x=3x2x128 --shape positions=3 "
                     "--shape cos_sin_cache=16x64 --repeat 1");
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(contains(r.out, "  target cpu_ref\n"));
  }
  SUBCASE("paged decode: block ids in [0, NB), seq_lens in [1, MB * BS] of the caches given") {
    auto r = tileops("run GroupedQueryAttentionDecodePagedFwdOp --case llama3-8b-b1-ctx8k-float32 --shape q=1x2x8 "
                     "--shape k_cache=4x4x1x8 --shape v_cache=4x4x1x8 --shape block_table=1x3 --shape seq_lens=1 "
                     "--repeat 1");
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(contains(r.out, "  target cpu_ref\n"));
  }
}

TEST_CASE("tileops run --shape with a malformed shape names it") {
  auto r = tileops("run SoftmaxFwdOp --shape x=2xa --repeat 1");
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out == "ValueError: --shape: '2xa' is not a shape: expected sizes joined by 'x', e.g. 2048x4096, or 'scalar'\n");
}

TEST_CASE("tileops run --shape without INPUT= names what it got") {
  auto r = tileops("run SoftmaxFwdOp --shape 2x3 --repeat 1");
  CHECK(r.status == 1);
  CHECK(r.out == "ValueError: --shape takes INPUT=AxB, got '2x3'\n");
}

#ifdef TILEOPS_CLI_HAS_CUDA_CACHE
TEST_CASE("tileops cache lists and clears the kernel cache where TILEOPS_CACHE_DIR says, and needs a place") {
  const std::string dir = (std::filesystem::temp_directory_path() / "tileops-cli-cache-test").string();
  std::filesystem::remove_all(dir);
  auto r = cli_test::run("env TILEOPS_CACHE_DIR=" + dir + " " + cli_test::cli_command(TILEOPS_CLI, "", "cache"));
  CHECK(r.status == 0);
  CHECK(r.out == "0 entries, 0 bytes in " + dir + "/cuda\n");
  r = cli_test::run("env TILEOPS_CACHE_DIR=" + dir + " " + cli_test::cli_command(TILEOPS_CLI, "", "cache clear"));
  CHECK(r.status == 0);
  CHECK(r.out == "removed 0 entries from " + dir + "/cuda\n");
  r = cli_test::run("env -u TILEOPS_CACHE_DIR -u XDG_CACHE_HOME -u HOME " +
                    cli_test::cli_command(TILEOPS_CLI, "", "cache"));
  CHECK(r.status == 1);
  CHECK(r.out == "error: no cache directory: set TILEOPS_CACHE_DIR or HOME\n");
  std::filesystem::remove_all(dir);
}
#endif

TEST_CASE("tileops demo and the command line itself") {
  auto demo = tileops("demo");
  INFO(demo.out);
  CHECK(demo.status == 0);
  CHECK(contains(demo.out, "  RMSNormFwdOp     [cpu_ref]  -> float32[16, 256] on cpu "));
  CHECK(contains(demo.out, "SwiGLUMLPFwdOp (composite of the last three) [cpu_ref]: relative difference "));

  auto no_command = tileops("");
  CHECK(no_command.status != 0);
  auto help = tileops("--help");
  CHECK(help.status == 0);
  for (const char* cmd : {"plugins", "failures", "targets", "doctor", "validate", "run", "demo"}) CHECK(contains(help.out, cmd));
  auto unknown = tileops("frobnicate");
  CHECK(unknown.status != 0);
}
