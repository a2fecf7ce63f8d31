// `tileops run` for every op of the manifest: a workload case of its spec with small
// shapes, on the CPU. Exit status 0, the outputs the table expects, target cpu_ref.
#include "cases.hpp"
#include "process.hpp"

#include <doctest/doctest.h>

#include <set>

#ifndef TILEOPS_CLI
#error "TILEOPS_CLI (the path of the tileops binary) must be defined"
#endif

using namespace conformance;

TEST_CASE("tileops run: every op of the manifest on cpu, through cpu_ref") {
  std::set<std::string> ops;
  for (const auto& c : cli_cases()) {
    ops.insert(c.op);
    std::string args = "run " + c.op + " --case " + cli_test::quote(c.case_id) + " --repeat 1";
    for (const auto& s : c.shapes) args += " --shape " + cli_test::quote(s);
    const std::string command = cli_test::cli_command(TILEOPS_CLI, "", args);
    INFO(command);
    const auto r = cli_test::run(command);
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(r.out.find(c.op + " case " + c.case_id + "\n") == 0);
    CHECK(r.out.find("\n  target cpu_ref\n") != std::string::npos);
    for (const auto& o : c.outputs) CHECK(r.out.find("\n  output " + o + " on cpu ") != std::string::npos);
    CHECK(r.out.find(" nan=") == std::string::npos);
    CHECK(r.out.find("us per call (median of 1,") != std::string::npos);
  }
  CHECK(ops.size() == manifest_ops().size());
}

TEST_CASE("tileops run --list lists the workload case ids the table uses") {
  for (const auto& c : cli_cases()) {
    const auto r = cli_test::run(cli_test::cli_command(TILEOPS_CLI, "", "run " + c.op + " --list"));
    INFO(c.op << "\n" << r.out);
    CHECK(r.status == 0);
    CHECK(("\n" + r.out).find("\n" + c.case_id + "\n") != std::string::npos);
  }
}
