// tileops bench [OP ...]: verifies and times ops on their manifest workloads, against a
// device profile's roofline and a baseline; writes Markdown, CSV, JSON and an SVG plot.
// Only option parsing lives here: the work is in tools/bench/.
#include "commands.hpp"

#include "calibrate.hpp"
#include "profile.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <tileops/errors.hpp>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace tileops::cli {
namespace {

struct BenchCommand {
  bench::RunOptions run;
  std::string max_bytes;  // "64M"
  std::string json, csv, report, plot;
  bool calibrate = false;
};

// "67108864", "64M", "1.5G": bytes, with binary k/M/G suffixes.
double parse_bytes(const std::string& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string suffix(end, text.data() + text.size());
  const double scale = suffix.empty() ? 1 : suffix == "k" || suffix == "K" ? 1024.0 : suffix == "M" ? 1048576.0
                     : suffix == "G" ? 1073741824.0 : 0;
  if (ec != std::errc() || scale == 0 || value < 0)
    throw ValueError("--max-bytes: '" + text + "' is not a size: a number with an optional k, M or G suffix");
  return value * scale;
}

// The command as typed, for the reports (argv as the kernel recorded it).
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string out, arg;
  bool first = true;
  while (std::getline(in, arg, '\0')) {
    if (first) arg = std::filesystem::path(arg).filename().string();
    const bool quote = arg.empty() || arg.find_first_of(" \t'\"$") != std::string::npos;
    out += (first ? "" : " ") + (quote ? "'" + arg + "'" : arg);
    first = false;
  }
  return out;
}

void run_calibration(const BenchCommand& c) {
  const bench::Selection& s = c.run.selection;
  if (!s.ops.empty() || !s.families.empty() || !s.labels.empty())
    throw ValueError("--calibrate measures the device alone: it takes no ops, --family or --label");
  auto device = bench::open_run_device(Device::parse(c.run.device), c.run.timing);
  const bench::CalibrationReport r = bench::calibrate(*device, c.run.warmup.value_or(5), c.run.reps.value_or(20));
  const std::string& name = device->description().name;
  std::cout << "calibration of " << device->device().str() << " (" << name << "), timed with "
            << device->timer().name() << "\n"
            << "  copy: " << r.values.copy_tbps << " TB/s (" << r.copy_bytes / double(1 << 30)
            << " GiB read + written, median "
            << r.copy_time.median_us << " us)\n"
            << "  gemm: " << r.values.gemm_bf16_tflops << " TFLOP/s (cuBLASLt bf16 " << r.gemm_size << "^3, median "
            << r.gemm_time.median_us << " us)\n";
  const std::string& path = c.run.profile_path;
  std::optional<bench::DeviceProfile> profile;
  if (!path.empty() && std::filesystem::exists(path)) profile = bench::load_profile(path);
  else profile = bench::builtin_profile_for(name);
  if (!profile) {
    std::cout << "no device profile is named '" << name << "': add manifest/profiles/<id>.yaml with that name\n";
    return;
  }
  profile->calibration = r.values;
  if (path.empty()) {
    std::cout << "\n" << bench::profile_yaml(*profile)
              << "(pass --profile FILE to write this, e.g. --profile manifest/profiles/" << profile->id << ".yaml)\n";
    return;
  }
  bench::save_profile(*profile, path);
  std::cout << "wrote " << path << "\n";
}

int run(BenchCommand& c) {
  if (!c.max_bytes.empty()) c.run.max_bytes = parse_bytes(c.max_bytes);
  c.run.command = command_line();
  bench::BenchResult result;
  {
    bench::ProgressBar bar;
    result = bench::run_bench(c.run, [&](size_t done, size_t total, const std::string& what) {
      bar.update(done, total, what);
    });
  }
  const std::string markdown = bench::markdown_report(result);
  std::cout << markdown;
  if (!c.report.empty()) bench::write_report(c.report, markdown);
  if (!c.csv.empty()) bench::write_report(c.csv, bench::csv_report(result));
  if (!c.json.empty()) bench::write_report(c.json, bench::json_report(result));
  if (!c.plot.empty()) bench::write_report(c.plot, bench::svg_roofline(result));
  return result.count(bench::CaseStatus::failed) ? 1 : 0;
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Verify and time ops on their manifest workloads");
  static BenchCommand c;
  cmd->add_option("op", c.run.selection.ops, "ops to run (with --family: both); none: every op");
  cmd->add_option("--family", c.run.selection.families, "every op of a family: norm, reduction, ...");
  cmd->add_option("--label", c.run.selection.labels, "only workload rows with this label (or this case id)");
  cmd->add_option("--device", c.run.device, "the device: cuda:0 (default), cpu, ...");
  cmd->add_option("--target", c.run.target, "a target name, or 'builtin' (default: decided from the device)");
  cmd->add_option("--reps", c.run.reps, "timed calls per case (default 100 on CUDA, 10 with host timing)");
  cmd->add_option("--warmup", c.run.warmup, "untimed calls first (default 10 on CUDA, 2 with host timing)");
  cmd->add_option("--rotate", c.run.rotate, "input sets called in turn")->capture_default_str();
  cmd->add_option("--max-bytes", c.max_bytes,
                  "skip cases moving more than this (64M, 1G; default: no limit on CUDA, 64M with host timing)");
  cmd->add_option("--seed", c.run.seed, "seed of the random inputs")->capture_default_str();
  cmd->add_option("--profile", c.run.profile_path,
                  "device profile YAML (default: the built-in one named like the device); --calibrate writes it");
  cmd->add_flag("--allow-events-fallback", c.run.timing.allow_events_fallback,
                "time with CUDA events when CUPTI is unavailable");
  cmd->add_flag("--calibrate", c.calibrate, "measure copy bandwidth and cuBLASLt bf16 GEMM throughput, then exit");
  cmd->add_option("--report", c.report, "write the Markdown report here (e.g. docs/perf/<name>.md)");
  cmd->add_option("--csv", c.csv, "write a CSV table here");
  cmd->add_option("--json", c.json, "write JSON (schema tileops.bench/1) here");
  cmd->add_option("--plot", c.plot, "write a roofline plot (SVG) here");
  cmd->callback([] {
    if (c.calibrate) return run_calibration(c);
    if (int status = run(c)) throw CLI::RuntimeError(status);
  });
}

}  // namespace tileops::cli
