// The Markdown page: what was run, how, on what, compared with what; then one table row
// per case, then why cases failed or were skipped.
#include "report.hpp"
#include "report_text.hpp"

#include <sstream>

namespace tileops::bench {
namespace {

std::string roofline_text(const RunInfo& info) {
  if (!info.roofs) return "no device profile for " + info.device_name + ": floors and efficiency not computed";
  const Roofs& roofs = *info.roofs;
  std::string peaks;
  for (const auto& [key, tflops] : roofs.peaks_tflops) peaks += (peaks.empty() ? "" : ", ") + key + " " + text("%g", tflops);
  return "profile `" + roofs.profile + "` (" + (roofs.calibrated ? "calibrated" : "nominal, not calibrated") +
         "): bandwidth " + text("%g", roofs.bandwidth_tbps) + " TB/s; peaks " + peaks +
         ". floor = max(bytes / bandwidth, FLOPs / peak); efficiency = floor / median; "
         "`at ceiling` from 0.8, `anomaly` above 1.05";
}

std::string timing_text(const RunInfo& info) {
  std::string out = "`" + info.timing + "`: median, p10 and p90 of " + std::to_string(info.reps) + " calls after " +
                    std::to_string(info.warmup) + " warm-up calls; " + std::to_string(info.rotate) +
                    " input sets called in turn";
  if (info.flush_bytes) out += "; L2 flushed before every call by a " + mebibytes(double(info.flush_bytes)) + " write";
  if (!info.timing_note.empty()) out += " (" + info.timing_note + ")";
  return out;
}

std::string cell(const std::optional<double>& v, const char* format) { return v ? text(format, *v) : "—"; }

// Pipes inside a cell would end it.
std::string escaped(std::string s) {
  for (size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
  return s;
}

}  // namespace

std::string markdown_report(const BenchResult& result) {
  const RunInfo& info = result.info;
  std::ostringstream md;
  md << "# tileops bench: " << info.device_name << " (" << info.device << ")\n\n"
     << "| | |\n| --- | --- |\n"
     << "| date | " << info.date << " |\n"
     << "| device | " << info.device << ": " << escaped(info.device_name) << " |\n"
     << "| driver | " << (info.driver.empty() ? "—" : info.driver) << " |\n"
     << "| command | `" << escaped(info.command) << "` |\n"
     << "| tileops | " << info.tileops_version << " |\n"
     << "| timing | " << escaped(timing_text(info)) << " |\n"
     << "| verification | every case against `cpu_ref` on the same random inputs before it is timed: "
        "‖out − ref‖/‖ref‖ ≤ 1e-5 float32, 1e-3 float16, 1e-2 bfloat16, exact for integers; a case that fails "
        "is not timed |\n"
     << "| compared with | `copy`: a device-to-device copy of the same bytes (memory-bound ops); `cublaslt`: "
        "cuBLASLt on the same operands (GemmFwdOp, BmmFwdOp); called in turn with the op. "
        "vs baseline = baseline time / op time |\n"
     << "| roofline | " << escaped(roofline_text(info)) << " |\n"
     << "| cases | " << result.cases.size() << ": " << result.count(CaseStatus::ok) << " ok, "
     << result.count(CaseStatus::failed) << " failed, " << result.count(CaseStatus::skipped) << " skipped"
     << (result.count(CaseStatus::skipped) ? " (moving over " + mebibytes(info.max_bytes) + ")" : "") << " |\n\n";

  md << "| op | case | target | status | median µs | p10 µs | p90 µs | MB | GFLOP | TB/s | TFLOP/s | floor µs | bound "
        "| efficiency | verdict | baseline | baseline µs | vs baseline | rel. error |\n"
     << "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- | ---: "
        "| ---: | ---: |\n";
  for (const CaseResult& r : result.cases) {
    const bool timed = r.time.has_value();
    md << "| " << r.op << " | " << r.case_id << " | " << (r.target.empty() ? "—" : r.target) << " | "
       << status_name(r.status) << " | " << (timed ? text("%.2f", r.time->median_us) : "—") << " | "
       << (timed ? text("%.2f", r.time->p10_us) : "—") << " | " << (timed ? text("%.2f", r.time->p90_us) : "—")
       << " | " << text("%.2f", r.cost.bytes / 1e6) << " | " << text("%.3g", r.cost.flops / 1e9) << " | "
       << (timed ? text("%.3f", tbps(r)) : "—") << " | " << (timed ? text("%.3g", tflops(r)) : "—") << " | "
       << (r.floor ? text("%.2f", r.floor->us) : "—") << " | " << (r.floor ? bound_name(*r.floor) : "—") << " | "
       << cell(r.efficiency, "%.2f") << " | " << (r.verdict.empty() ? "—" : r.verdict) << " | "
       << (r.baseline.empty() ? "—" : r.baseline) << " | "
       << (r.baseline_time ? text("%.2f", r.baseline_time->median_us) : "—") << " | " << cell(r.vs_baseline, "%.2f")
       << " | " << cell(r.rel_error, "%.1e") << " |\n";
  }

  bool heading = false;
  for (const CaseResult& r : result.cases) {
    if (r.status == CaseStatus::ok) continue;
    if (!heading) md << "\n## Not timed\n\n";
    heading = true;
    md << "- " << r.op << " " << r.case_id << " (" << status_name(r.status) << "): " << r.reason << "\n";
  }
  return md.str();
}

}  // namespace tileops::bench
