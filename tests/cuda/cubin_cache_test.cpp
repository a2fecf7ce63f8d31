// The on-disk cubin cache: key stability, the file format and its checksum, atomic
// writes, threads sharing it, and the JIT's recovery from a corrupt entry. No GPU
// needed; the cases that compile need NVRTC and are skipped, saying so, without it.
#include <doctest/doctest.h>

#include "jit.hpp"
#include "nvrtc.hpp"
#include "nvrtc_or_skip.hpp"
#include "temp_cache_dir.hpp"

#include <tileops/cuda/cubin_cache.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

namespace cache = tileops::cuda::cache;
namespace cuda = tileops::cuda;
namespace fs = std::filesystem;
using tileops::cuda::test::TempCacheDir;

namespace {

cache::Entry sample_entry() {
  cache::Entry e;
  e.arch = 90;
  e.nvrtc_version = 13000;
  e.description = "norm.cuh: tileops_cuda::norm_reg<float, 0, 4, 8, 256, 1, 1>";
  e.symbols = {{"tileops_cuda::norm_reg<float, 0, 4, 8, 256, 1, 1>", "_ZN12tileops_cuda8norm_regIfLi0EEEv"}};
  e.cubin = std::string("\x7f" "ELF", 4) + std::string(1000, '\x42');
  return e;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

const cuda::ProgramSpec kProgram{"copy", {"tileops_cuda::strided_copy<4>"}};

}  // namespace

TEST_CASE("the hash is FNV-1a-128 and frames each piece") {
  // FNV-1a-128 of the empty string is the offset basis; of "a", the published vector.
  CHECK(cache::Hasher::of("").hex() == "6c62272e07bb014262b821756295c58d");
  CHECK(cache::Hasher::of("a").hex() == "d228cb696f1a8caf78912b704e4a8964");
  CHECK(cache::Hasher().add("ab").add("c").digest().hex() != cache::Hasher().add("a").add("bc").digest().hex());
  CHECK(cache::Hasher().add("x").digest() == cache::Hasher().add("x").digest());
}

TEST_CASE("cache keys are stable and cover arch, options, kernels and NVRTC version") {
  const auto request = cuda::compile_request(kProgram, 90);
  const auto key = cuda::cache_key(request, 90, 13000);
  CHECK(key == cuda::cache_key(cuda::compile_request(kProgram, 90), 90, 13000));
  CHECK(key.hex().size() == 32);
  CHECK_FALSE(key == cuda::cache_key(request, 80, 13000));
  CHECK_FALSE(key == cuda::cache_key(request, 90, 12080));
  auto other_options = request;
  other_options.options.push_back("-lineinfo");
  CHECK_FALSE(key == cuda::cache_key(other_options, 90, 13000));
  CHECK_FALSE(key == cuda::cache_key(cuda::compile_request({"copy", {"tileops_cuda::strided_copy<8>"}}, 90), 90, 13000));
  // sm_90 targets the arch-specific variant, so Hopper-only instructions are allowed.
  CHECK(request.options.front() == "--gpu-architecture=sm_90a");
  CHECK(cuda::compile_options(80).front() == "--gpu-architecture=sm_80");
}

TEST_CASE("entries round-trip and any damage is detected") {
  const cache::Entry e = sample_entry();
  const std::string bytes = cache::encode(e);
  CHECK(bytes.substr(0, 8) == "TOPCUBIN");
  std::string problem;
  const auto back = cache::decode(bytes, &problem);
  REQUIRE(back);
  CHECK(back->arch == e.arch);
  CHECK(back->nvrtc_version == e.nvrtc_version);
  CHECK(back->description == e.description);
  REQUIRE(back->symbols.size() == 1);
  CHECK(back->symbols[0].lowered == e.symbols[0].lowered);
  CHECK(back->cubin == e.cubin);

  std::string flipped = bytes;
  flipped[bytes.size() - 10] ^= 0x01;
  CHECK_FALSE(cache::decode(flipped, &problem));
  CHECK(problem == "checksum mismatch");
  CHECK_FALSE(cache::decode(bytes.substr(0, bytes.size() - 1), &problem));
  CHECK_FALSE(cache::decode(bytes.substr(0, 20), &problem));
  std::string wrong_magic = bytes;
  wrong_magic[0] = 'X';
  CHECK_FALSE(cache::decode(wrong_magic, &problem));
  std::string future = bytes;
  future[8] = 3;  // format version
  CHECK_FALSE(cache::decode(future, &problem));
  CHECK(problem == "format version 3, expected 2");
}

TEST_CASE("every single-bit flip and every truncation of an entry is refused with a reason") {
  const std::string bytes = cache::encode(sample_entry());
  std::string problem;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = char(damaged[i] ^ (1 << bit));
      problem.clear();
      INFO("byte " << i << " bit " << bit);
      CHECK_FALSE(cache::decode(damaged, &problem));
      CHECK_FALSE(problem.empty());
    }
  for (size_t n = 0; n < bytes.size(); ++n) {
    problem.clear();
    INFO("cut to " << n << " bytes");
    CHECK_FALSE(cache::decode(bytes.substr(0, n), &problem));
    CHECK_FALSE(problem.empty());
  }
}

TEST_CASE("writes are atomic: a reader holding the old entry keeps it whole, no temporary stays") {
  TempCacheDir dir;
  const std::string path = cache::entry_path(dir.cuda_dir(), cache::Hasher::of("k"));
  cache::Entry first = sample_entry();
  cache::write(path, first);  // creates the directory
  std::ifstream reader(path, std::ios::binary);  // opened before the replacement
  cache::Entry second = sample_entry();
  second.cubin.assign(5000, '\x17');
  cache::write(path, second);
  const std::string old_bytes{std::istreambuf_iterator<char>(reader), std::istreambuf_iterator<char>()};
  CHECK(cache::decode(old_bytes, nullptr)->cubin == first.cubin);  // rename, not rewrite in place
  cache::Entry now;
  std::string problem;
  REQUIRE(cache::read(path, now, problem) == cache::Lookup::hit);
  CHECK(now.cubin == second.cubin);
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(dir.cuda_dir())) {
    ++files;
    CHECK(f.path().extension() == ".cubin");
  }
  CHECK(files == 1);
}

TEST_CASE("list reports intact and corrupt entries; clear removes them") {
  TempCacheDir dir;
  cache::write(cache::entry_path(dir.cuda_dir(), cache::Hasher::of("a")), sample_entry());
  const std::string bad = cache::entry_path(dir.cuda_dir(), cache::Hasher::of("b"));
  cache::write(bad, sample_entry());
  std::string bytes = slurp(bad);
  bytes.back() ^= 0x40;
  spit(bad, bytes);
  spit(fs::path(dir.cuda_dir()) / ".left.123.0.tmp", "partial");
  const auto listed = cache::list(dir.cuda_dir());
  REQUIRE(listed.size() == 2);
  size_t valid = 0;
  for (const auto& l : listed) {
    valid += l.valid;
    if (!l.valid) CHECK(l.problem == "checksum mismatch");
    if (l.valid) CHECK(l.entry.description == sample_entry().description);
    CHECK(l.entry.cubin.empty());
  }
  CHECK(valid == 1);
  CHECK(cache::clear(dir.cuda_dir()) == 3);
  CHECK(fs::is_empty(dir.cuda_dir()));
}

TEST_CASE("the JIT reads its own entries back and recompiles a corrupt one") {
  if (!nvrtc_or_skip()) return;
  TempCacheDir dir;
  const cuda::Cubin compiled = cuda::get_cubin(kProgram, 90);
  CHECK(compiled.origin == cuda::CubinOrigin::compiled);
  REQUIRE(compiled.entry.symbols.size() == 1);
  CHECK(compiled.entry.symbols[0].name_expression == kProgram.kernels[0]);

  const cuda::Cubin hit = cuda::get_cubin(kProgram, 90);
  CHECK(hit.origin == cuda::CubinOrigin::disk_cache);
  CHECK(hit.entry.cubin == compiled.entry.cubin);
  CHECK(hit.entry.symbols[0].lowered == compiled.entry.symbols[0].lowered);

  const auto listed = cache::list(dir.cuda_dir());
  REQUIRE(listed.size() == 1);
  std::string bytes = slurp(listed[0].path);
  bytes[bytes.size() / 2] ^= 0x20;  // damage the cubin
  spit(listed[0].path, bytes);
  const cuda::Cubin again = cuda::get_cubin(kProgram, 90);
  CHECK(again.origin == cuda::CubinOrigin::compiled);  // the corrupt entry was not used
  cache::Entry rewritten;
  std::string problem;
  CHECK(cache::read(listed[0].path, rewritten, problem) == cache::Lookup::hit);  // overwritten
  CHECK(rewritten.cubin == again.entry.cubin);
}

TEST_CASE("builds are reproducible: one request, the same cubin every time (NVRTC 12.9 and later)") {
  if (!nvrtc_or_skip()) return;
  if (!cuda::nvrtc_builds_reproducible()) {
    MESSAGE("SKIPPED: NVRTC " << cuda::nvrtc_version() << " cannot fix its symbol-name seed");
    return;
  }
  // Unseeded, 20 builds in a row of this program gave 4 different cubins.
  const auto request = cuda::compile_request(kProgram, 90);
  const std::string first = cuda::compile(request).cubin;
  for (int i = 0; i < 8; ++i) CHECK(cuda::compile(request).cubin == first);
}

TEST_CASE("--minimal, where NVRTC takes it, leaves the kernels' cubins as they were") {
  if (!nvrtc_or_skip()) return;
  const auto request = cuda::compile_request(kProgram, 90);
  const bool minimal = std::find(request.options.begin(), request.options.end(), "--minimal") != request.options.end();
  CHECK(minimal == cuda::nvrtc_takes_minimal());
  if (!minimal || !cuda::nvrtc_builds_reproducible()) {  // unseeded builds differ anyway
    MESSAGE("SKIPPED: NVRTC " << cuda::nvrtc_version() << " does not take --minimal or a fixed seed");
    return;
  }
  auto full = request;
  std::erase(full.options, "--minimal");
  CHECK(cuda::compile(full).cubin == cuda::compile(request).cubin);
}

TEST_CASE("threads building the same programs at once share one cache: an intact entry each, no temporary left") {
  if (!nvrtc_or_skip()) return;
  TempCacheDir dir;
  const cuda::ProgramSpec programs[] = {kProgram, {"copy", {"tileops_cuda::strided_copy<2>"}}};
  constexpr int kThreads = 6;
  std::vector<std::string> cubins[2];
  for (auto& c : cubins) c.resize(kThreads);
  std::vector<std::string> errors(kThreads);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          for (int k = 0; k < 2; ++k) {
            const int p = (t + k) % 2;  // half the threads start with each program
            cubins[p][t] = cuda::get_cubin(programs[p], 90).entry.cubin;
          }
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    for (auto& th : threads) th.join();
  }
  for (const auto& e : errors) CHECK(e == "");
  for (const auto& c : cubins) {
    REQUIRE(!c[0].empty());
    if (cuda::nvrtc_builds_reproducible())
      for (const auto& other : c) CHECK(other == c[0]);
  }
  const auto listed = cache::list(dir.cuda_dir());
  CHECK(listed.size() == 2);
  for (const auto& l : listed) CHECK_MESSAGE(l.valid, l.path << ": " << l.problem);
  for (const auto& f : fs::directory_iterator(dir.cuda_dir())) CHECK(f.path().extension() == ".cubin");
}
