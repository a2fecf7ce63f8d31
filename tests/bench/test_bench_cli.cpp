// `tileops bench` as a user runs it on a machine without a GPU: --device cpu, a small
// selection, every output file written, the exit status.
#include "process.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("tileops bench --device cpu writes the report, CSV, JSON and plot") {
  const fs::path dir = fs::temp_directory_path() / ("tileops-bench-cli-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string args = "bench RMSNormFwdOp SiluFwdOp --device cpu --label llama3-8b-decode --label "
                           "llama3-8b-gate-decode-b64 --reps 2 --warmup 0 --max-bytes 8M --report " +
                           (dir / "perf" / "cpu.md").string() + " --csv " + (dir / "cpu.csv").string() + " --json " +
                           (dir / "cpu.json").string() + " --plot " + (dir / "cpu.svg").string();
  const auto r = cli_test::run(cli_test::cli_command(TILEOPS_CLI, "", args, false));
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find("| RMSNormFwdOp | llama3-8b-decode-bfloat16 |") != std::string::npos);

  const std::string md = read(dir / "perf" / "cpu.md");
  CHECK(md.find("| command | `tileops bench RMSNormFwdOp SiluFwdOp --device cpu") != std::string::npos);
  CHECK(md.find("| cases | 4: 4 ok, 0 failed, 0 skipped |") != std::string::npos);
  const auto doc = nlohmann::json::parse(read(dir / "cpu.json"));
  CHECK(doc["schema"] == "tileops.bench/1");
  CHECK(doc["run"]["timing"]["method"] == "host");
  CHECK(doc["cases"].size() == 4);
  // The manifest's own params and shapes for a case, so that other tools can rebuild it.
  const auto rms = std::find_if(doc["cases"].begin(), doc["cases"].end(),
                                [](const auto& c) { return c["case"] == "llama3-8b-decode-bfloat16"; });
  REQUIRE(rms != doc["cases"].end());
  CHECK((*rms)["params"]["normalized_shape"] == nlohmann::json::array({4096}));
  CHECK((*rms)["params"]["eps"] == 1e-5);
  CHECK((*rms)["shapes"] == nlohmann::json::parse(R"([{"name": "x", "dtype": "bfloat16", "shape": [64, 4096]},
                                                    {"name": "weight", "dtype": "bfloat16", "shape": [4096]}])"));
  CHECK(read(dir / "cpu.csv").starts_with("op,case,"));
  CHECK(read(dir / "cpu.svg").find("class=\"case\"") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("bench options are checked") {
  const std::pair<const char*, const char*> cases[] = {
      {"--max-bytes lots", "--max-bytes: 'lots' is not a size"},
      {"--reps 0 ReluFwdOp", "ValueError: --reps must be at least 1 and --warmup at least 0"},
      {"--calibrate ReluFwdOp",
       "ValueError: --calibrate measures the device alone: it takes no ops, --family or --label"},
      {"--label nosuch ReluFwdOp", "ValueError: no selected op has a workload row or case 'nosuch'"}};
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    const auto r = cli_test::run(cli_test::cli_command(TILEOPS_CLI, "", std::string("bench --device cpu ") + args));
    CHECK(r.status != 0);
    CHECK(r.out.find(message) != std::string::npos);
  }
}
