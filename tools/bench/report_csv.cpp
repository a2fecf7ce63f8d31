// CSV: a header row, then one row per case; an empty field is a value that does not apply.
#include "report.hpp"
#include "report_text.hpp"

#include <sstream>

namespace tileops::bench {
namespace {

// RFC 4180: fields with a comma, quote or newline are quoted, quotes doubled.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(const std::optional<double>& v) { return v ? text("%.6g", *v) : ""; }

}  // namespace

std::string csv_report(const BenchResult& result) {
  std::ostringstream csv;
  csv << "op,case,label,family,target,status,reason,timing,inputs,dtype,flops,bytes,median_us,p10_us,p90_us,reps,"
         "tbps,tflops,roof,peak,floor_us,bound,efficiency,verdict,baseline,baseline_us,vs_baseline,rel_error,"
         "tolerance\n";
  for (const CaseResult& r : result.cases) {
    const bool timed = r.time.has_value();
    const auto from_time = [&](double Spread::*m) { return timed ? number((*r.time).*m) : ""; };
    csv << field(r.op) << ',' << field(r.case_id) << ',' << field(r.label) << ',' << field(r.family) << ','
        << field(r.target) << ',' << status_name(r.status) << ',' << field(r.reason) << ','
        << (timed ? result.info.timing : "") << ',' << field(r.inputs) << ',' << r.cost.dtype.name() << ','
        << number(r.cost.flops) << ',' << number(r.cost.bytes) << ',' << from_time(&Spread::median_us) << ','
        << from_time(&Spread::p10_us) << ',' << from_time(&Spread::p90_us) << ','
        << (timed ? std::to_string(r.time->samples) : "") << ',' << (timed ? number(tbps(r)) : "") << ','
        << (timed ? number(tflops(r)) : "") << ',' << r.cost.roof_key << ',' << (r.floor ? r.floor->peak : "") << ','
        << (r.floor ? number(r.floor->us) : "") << ',' << (r.floor ? bound_name(*r.floor) : "") << ','
        << number(r.efficiency) << ',' << field(r.verdict) << ',' << r.baseline << ','
        << (r.baseline_time ? number(r.baseline_time->median_us) : "") << ',' << number(r.vs_baseline) << ','
        << number(r.rel_error) << ',' << (r.rel_error ? number(r.tolerance) : "") << '\n';
  }
  return csv.str();
}

}  // namespace tileops::bench
