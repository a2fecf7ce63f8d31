// JSON, schema tileops.bench/1 (docs/cli.md): fields are only ever added; a value that
// does not apply is null.
#include "report.hpp"
#include "report_text.hpp"

#include <nlohmann/json.hpp>

#include <type_traits>
#include <variant>

namespace tileops::bench {
namespace {

using json = nlohmann::ordered_json;  // keys in the order written, as documented

json optional(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json spread(const std::optional<Spread>& s) {
  if (!s) return nullptr;
  return {{"median_us", s->median_us}, {"p10_us", s->p10_us}, {"p90_us", s->p90_us}, {"samples", s->samples}};
}

json param_json(const ParamValue& value) {
  return std::visit(
      [](const auto& v) -> json {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) return nullptr;
        else if constexpr (std::is_same_v<V, DType>) return std::string(v.name());
        else return v;  // bool, int64, double, string and their lists map as they are
      },
      value);
}

json params_json(const Params& params) {
  json out = json::object();
  for (const Param& p : params) out[p.name] = param_json(p.value);
  return out;
}

json shapes_json(const std::vector<std::optional<InputShape>>& shapes) {
  json out = json::array();
  for (const auto& s : shapes)
    out.push_back(s ? json{{"name", s->name}, {"dtype", std::string(s->dtype.name())}, {"shape", s->shape}}
                    : json(nullptr));
  return out;
}

json run_json(const RunInfo& info) {
  json roofs = nullptr;
  if (info.roofs)
    roofs = {{"profile", info.roofs->profile},
             {"calibrated", info.roofs->calibrated},
             {"bandwidth_tbps", info.roofs->bandwidth_tbps},
             {"peaks_tflops", info.roofs->peaks_tflops}};
  return {{"date", info.date},
          {"command", info.command},
          {"tileops_version", info.tileops_version},
          {"device", {{"id", info.device}, {"name", info.device_name}, {"driver", info.driver}}},
          {"timing", {{"method", info.timing},
                      {"note", info.timing_note},
                      {"warmup", info.warmup},
                      {"reps", info.reps},
                      {"rotate", info.rotate},
                      {"flush_bytes", info.flush_bytes}}},
          {"max_bytes", info.max_bytes > 0 ? json(info.max_bytes) : json(nullptr)},
          {"roofs", roofs}};
}

json case_json(const CaseResult& r) {
  const bool timed = r.time.has_value();
  json floor = nullptr;
  if (r.floor) floor = {{"us", r.floor->us}, {"bound", bound_name(*r.floor)}, {"peak", r.floor->peak}};
  json baseline = nullptr;
  if (!r.baseline.empty())
    baseline = {{"name", r.baseline}, {"time", spread(r.baseline_time)}, {"ratio", optional(r.vs_baseline)}};
  return {{"op", r.op},
          {"case", r.case_id},
          {"label", r.label},
          {"family", r.family},
          {"inputs", r.inputs},
          {"params", params_json(r.params)},
          {"shapes", shapes_json(r.shapes)},
          {"target", r.target.empty() ? json(nullptr) : json(r.target)},
          {"status", std::string(status_name(r.status))},
          {"reason", r.reason.empty() ? json(nullptr) : json(r.reason)},
          {"flops", r.cost.flops},
          {"bytes", r.cost.bytes},
          {"roof", r.cost.roof_key},
          {"dtype", std::string(r.cost.dtype.name())},
          {"rel_error", optional(r.rel_error)},
          {"tolerance", r.rel_error ? json(r.tolerance) : json(nullptr)},
          {"time", spread(r.time)},
          {"tbps", timed ? json(tbps(r)) : json(nullptr)},
          {"tflops", timed ? json(tflops(r)) : json(nullptr)},
          {"floor", floor},
          {"efficiency", optional(r.efficiency)},
          {"verdict", r.verdict.empty() ? json(nullptr) : json(r.verdict)},
          {"baseline", baseline},
          {"baseline_note", r.baseline_note.empty() ? json(nullptr) : json(r.baseline_note)}};
}

}  // namespace

std::string json_report(const BenchResult& result) {
  json cases = json::array();
  for (const CaseResult& r : result.cases) cases.push_back(case_json(r));
  json doc = {{"schema", "tileops.bench/1"}, {"run", run_json(result.info)}, {"cases", cases}};
  return doc.dump(2) + "\n";
}

}  // namespace tileops::bench
