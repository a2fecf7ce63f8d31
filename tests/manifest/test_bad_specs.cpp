// The corpus of wrong specs under bad_specs/: every folder produces exactly the
// problems its expected.txt lists.
#include <tileops/manifest.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tileops::manifest;
namespace fs = std::filesystem;

namespace {

std::string without(std::string text, const std::string& prefix) {
  for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  return text;
}

// What loading (and, when it loads, validating) the folder reports, one line each.
std::string report(const std::string& dir) {
  std::string out;
  try {
    Manifest m = Manifest::load_dir(dir);
    for (const Diagnostic& d : validate(m)) out += d.str() + "\n";
  } catch (const SpecError& e) {
    for (const SpecProblem& p : e.problems()) out += p.str() + "\n";
  }
  return without(out, dir + "/");
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("every bad spec fails with exactly the expected problems") {
  size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(TILEOPS_BAD_SPECS)) {
    if (!entry.is_directory()) continue;
    ++cases;
    std::string name = entry.path().filename().string();
    CAPTURE(name);
    REQUIRE(fs::exists(entry.path() / "expected.txt"));
    std::string expected = read(entry.path() / "expected.txt");
    CHECK_FALSE(expected.empty());
    CHECK(report(entry.path().string()) == expected);
  }
  CHECK(cases >= 25);
}

TEST_CASE("SpecError lists every problem, one per line after a count") {
  try {
    Manifest::load_dir(std::string(TILEOPS_BAD_SPECS) + "/bad_values");
    FAIL("expected a SpecError");
  } catch (const SpecError& e) {
    std::string what = e.what();
    CHECK(what.rfind("invalid manifest: 8 problems\n", 0) == 0);
    CHECK(std::count(what.begin(), what.end(), '\n') == 8);
    CHECK(std::string(e.kind()) == "SpecError");
    const tileops::ValueError& base = e;  // callers may catch the ValueError
    (void)base;
  }
  CHECK_THROWS_WITH_AS(Manifest::load_dir("/nonexistent/specs"),
                       doctest::Contains("/nonexistent/specs: cannot read the spec directory"), SpecError);
}
