// The manifest's own spec files, mutated line by line (a line deleted, duplicated, moved
// or re-indented, a word swapped for another word of the specs, the file cut short):
// loading and validating either succeeds or reports SpecError problems, and never throws
// anything else or crashes. The seed is fixed; TILEOPS_MUTATIONS sets the number of
// mutated manifests (the `stress` ctest entry runs many more).
#include <tileops/manifest.hpp>

#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../fuzz_seed.hpp"

using namespace tileops::manifest;
namespace fs = std::filesystem;

namespace {

using Lines = std::vector<std::string>;

std::map<std::string, Lines> read_specs(const fs::path& dir) {
  std::map<std::string, Lines> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    Lines& lines = out[entry.path().filename().string()];
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  return out;
}

// Every word, number and operator of the specs, to swap in.
std::vector<std::string> vocabulary(const std::map<std::string, Lines>& specs) {
  std::set<std::string> words;
  const std::regex token(R"([A-Za-z_][A-Za-z_0-9.]*|-?[0-9]+(\.[0-9]+)?|[\[\](){}:,*|+\-/%<>=!]+)");
  for (const auto& [name, lines] : specs)
    for (const auto& line : lines)
      for (std::sregex_iterator it(line.begin(), line.end(), token), end; it != end; ++it) words.insert(it->str());
  return {words.begin(), words.end()};
}

class SpecMutator {
 public:
  SpecMutator(uint64_t seed, std::vector<std::string> words) : gen_(seed), words_(std::move(words)) {}

  std::string mutate(Lines& lines) {
    if (lines.empty()) return "empty";
    const size_t at = pick(lines.size()), other = pick(lines.size());
    switch (pick(7)) {
      case 0:
        lines.erase(lines.begin() + std::ptrdiff_t(at));
        return "line " + std::to_string(at + 1) + " deleted";
      case 1:
        lines.insert(lines.begin() + std::ptrdiff_t(at), lines[other]);
        return "line " + std::to_string(other + 1) + " copied";
      case 2:
        std::swap(lines[at], lines[other]);
        return "lines " + std::to_string(at + 1) + ", " + std::to_string(other + 1) + " swapped";
      case 3:
        lines[at] = "  " + lines[at];
        return "line " + std::to_string(at + 1) + " indented";
      case 4:
        lines.resize(at);
        return "cut after line " + std::to_string(at);
      default:
        return swap_word(lines[at], at);
    }
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(gen_); }

  std::string swap_word(std::string& line, size_t at) {
    const std::regex token(R"([A-Za-z_][A-Za-z_0-9.]*|-?[0-9]+)");
    std::vector<std::pair<size_t, size_t>> spans;
    for (std::sregex_iterator it(line.begin(), line.end(), token), end; it != end; ++it)
      spans.push_back({size_t(it->position()), size_t(it->length())});
    if (spans.empty()) return "nothing";
    const auto [pos, len] = spans[pick(spans.size())];
    const std::string& word = words_[pick(words_.size())];
    line.replace(pos, len, word);
    return "line " + std::to_string(at + 1) + ": a word became '" + word + "'";
  }

  std::mt19937_64 gen_;
  std::vector<std::string> words_;
};

int manifests_to_mutate() {
  const char* env = std::getenv("TILEOPS_MUTATIONS");
  return env ? std::atoi(env) : 100;
}

}  // namespace

TEST_CASE("mutated spec files load or report SpecError problems, nothing else") {
  const auto specs = read_specs(TILEOPS_SPEC_DIR);
  REQUIRE(specs.size() >= 8);
  SpecMutator mutator(tileops::testing::fuzz_seed(), vocabulary(specs));
  const fs::path dir = fs::temp_directory_path() / ("tileops_mutated_specs_" + std::to_string(::getpid()));
  int loaded = 0, refused = 0;
  for (int i = 0; i < manifests_to_mutate(); ++i) {
    auto mutated = specs;
    auto file = std::next(mutated.begin(), std::ptrdiff_t(size_t(i) % mutated.size()));
    std::string what = file->first + ":";
    for (int n = 1 + i % 3; n > 0; --n) what += " " + mutator.mutate(file->second) + ";";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& [name, lines] : mutated) {
      std::ofstream out(dir / name);
      for (const auto& line : lines) out << line << "\n";
    }
    INFO(what);
    try {
      Manifest m = Manifest::load_dir(dir.string());
      validate(m);
      ++loaded;
    } catch (const SpecError& e) {
      CHECK_MESSAGE(!e.problems().empty(), "a SpecError without problems");
      ++refused;
    } catch (const std::exception& e) {
      FAIL_CHECK("threw " << std::string(e.what()));
    }
  }
  fs::remove_all(dir);
  MESSAGE(loaded << " mutated manifests loaded, " << refused << " refused");
  CHECK(refused > 0);
}
