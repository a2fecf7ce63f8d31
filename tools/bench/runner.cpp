#include "runner.hpp"

#include "baseline_choice.hpp"
#include "lookahead.hpp"
#include "profile.hpp"
#include "timing_loop.hpp"
#include "verify.hpp"

#include <tileops/errors.hpp>
#include <tileops/op.hpp>
#include <tileops/stream.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>
#include <thread>

namespace tileops::bench {
namespace {

constexpr double kHostMaxBytes = 64.0 * (1 << 20);

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// A case's inputs as data, null where an optional input is omitted.
std::vector<std::optional<InputShape>> input_shapes(const manifest::OpSpec& spec, const manifest::WorkloadCase& c) {
  std::vector<std::optional<InputShape>> out(c.inputs.size());
  for (size_t i = 0; i < c.inputs.size(); ++i)
    if (c.inputs[i])
      out[i] = InputShape{spec.inputs()[i].name, c.inputs[i]->dtype,
                          {c.inputs[i]->shape.begin(), c.inputs[i]->shape.end()}};
  return out;
}

// "x: bfloat16[64, 4096], weight: bfloat16[4096]" (omitted optional inputs left out).
std::string inputs_text(const std::vector<std::optional<InputShape>>& shapes) {
  std::string out;
  for (const auto& s : shapes)
    if (s) out += (out.empty() ? "" : ", ") + s->name + ": " + std::string(s->dtype.name()) + format_shape(s->shape);
  return out;
}

// The same inputs for a case however the run is filtered: FNV-1a of "op/case" and the seed.
uint64_t case_seed(uint64_t seed, const std::string& op, const std::string& id) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (char ch : op + "/" + id) h = (h ^ uint8_t(ch)) * 1099511628211ull;
  return h;
}

struct Loop {
  int warmup = 0, reps = 0, rotate = 1;
};

// The op's calls on the input sets in turn, each followed by the baseline's call.
void time_case(Op& op, const std::vector<std::vector<Tensor>>& sets, Baseline* baseline, RunDevice& device,
               const Loop& loop, CaseResult& r) {
  std::vector<TimedCall> calls{[&](int round) { return op(sets[size_t(round) % sets.size()]); }};
  if (baseline)
    calls.push_back([baseline](int) {
      baseline->run();
      return std::vector<Tensor>();
    });
  const auto us = time_in_turn(device, loop.warmup, loop.reps, calls);
  r.time = spread_of(us[0]);
  if (baseline) r.baseline_time = spread_of(us[1]);
}

void run_case(const SelectedCase& sel, const Reference& ref, const std::string& target, const Loop& loop,
              RunDevice& device, CaseResult& r) {
  Op op(sel.spec->name(), sel.workload.params, target.empty() ? Target() : Target(target));
  std::vector<std::vector<Tensor>> sets{copies_on(ref.host_inputs, device.device())};
  // Verification is the first call on fresh random inputs, so no output memory can
  // still hold the right answer from an earlier call.
  std::vector<Tensor> outputs = op(sets[0]);
  r.target = op.target().value_or("");
  const Agreement agreement = compare_outputs(op.output_names(), outputs, ref.outputs);
  r.rel_error = agreement.rel_error;
  r.tolerance = agreement.tolerance;
  if (!agreement.passed) {
    r.status = CaseStatus::failed;
    r.reason = agreement.detail;
    return;
  }
  outputs.clear();
  for (int k = 1; k < loop.rotate; ++k) sets.push_back(copies_on(sets[0], device.device()));
  std::unique_ptr<Baseline> baseline = baseline_for(op, r.cost.roof_key, sets[0], r.cost.bytes, device, r.baseline_note);
  if (baseline) r.baseline = baseline->name();
  time_case(op, sets, baseline.get(), device, loop, r);
  synchronize(device.device());
}

// "OpNotAvailableError: ..." for the runtime's errors, what() for others.
std::string error_text(const std::exception& e) {
  if (auto* error = dynamic_cast<const Error*>(&e)) return std::string(error->kind()) + ": " + e.what();
  return e.what();
}

void fail(CaseResult& r, std::string reason) {
  r.status = CaseStatus::failed;
  r.reason = std::move(reason);
  r.time.reset();
  r.baseline_time.reset();
}

// What the timer still holds after a failed case belongs to no result.
void discard_timings(Timer& timer) {
  try {
    timer.collect();
  } catch (const std::exception&) {
    // The case has failed already; its partial timings are dropped either way.
  }
}

std::optional<Roofs> roofs_for(const RunOptions& o, const DeviceDescription& device) {
  if (!o.profile_path.empty()) return roofs_of(load_profile(o.profile_path));
  if (auto profile = builtin_profile_for(device.name)) return roofs_of(*profile);
  return std::nullopt;
}

}  // namespace

BenchResult run_bench(const RunOptions& o, const Progress& progress) {
  const std::vector<SelectedCase> selected = select_cases(o.selection);
  std::unique_ptr<RunDevice> device = open_run_device(Device::parse(o.device), o.timing);
  const bool host = device->timer().name() == "host";

  BenchResult result;
  RunInfo& info = result.info;
  info.date = utc_now();
  info.command = o.command;
  info.device = device->device().str();
  info.device_name = device->description().name;
  info.driver = device->description().driver;
  info.timing = device->timer().name();
  info.timing_note = device->timing_note();
  info.roofs = roofs_for(o, device->description());
  const Loop loop{o.warmup.value_or(host ? 2 : 10), o.reps.value_or(host ? 10 : 100), std::max(1, o.rotate)};
  if (loop.reps < 1 || loop.warmup < 0) throw ValueError("--reps must be at least 1 and --warmup at least 0");
  info.warmup = loop.warmup;
  info.reps = loop.reps;
  info.rotate = loop.rotate;
  info.flush_bytes = device->flush_bytes();
  info.max_bytes = o.max_bytes.value_or(host ? kHostMaxBytes : 0);
  info.tileops_version = TILEOPS_VERSION;

  std::vector<size_t> to_run;  // indices into `selected`
  for (size_t i = 0; i < selected.size(); ++i) {
    const SelectedCase& sel = selected[i];
    CaseResult& r = result.cases.emplace_back();
    r.op = sel.spec->name();
    r.family = sel.spec->family();
    r.case_id = sel.workload.id;
    r.label = sel.workload.label;
    r.params = sel.workload.params;
    r.shapes = input_shapes(*sel.spec, sel.workload);
    r.inputs = inputs_text(r.shapes);
    r.cost = case_cost(*sel.spec, sel.workload);
    if (info.roofs) r.floor = roofline_floor(r.cost, *info.roofs);
    if (info.max_bytes > 0 && r.cost.bytes > info.max_bytes) {
      r.status = CaseStatus::skipped;
      r.reason = "moves " + std::to_string(int64_t(r.cost.bytes)) + " bytes, over --max-bytes " +
                 std::to_string(int64_t(info.max_bytes));
      continue;
    }
    to_run.push_back(i);
  }

  // One core stays with the device loop; the others compute references ahead of it.
  const unsigned width = o.prepare_threads ? o.prepare_threads
                                           : std::clamp(std::thread::hardware_concurrency(), 2u, 17u) - 1;
  Lookahead<Reference> references(to_run.size(), width, [&](size_t k) {
    const SelectedCase& sel = selected[to_run[k]];
    return compute_reference(sel.spec->name(), sel.workload,
                             case_seed(o.seed, sel.spec->name(), sel.workload.id));
  });
  for (size_t k = 0; k < to_run.size(); ++k) {
    const SelectedCase& sel = selected[to_run[k]];
    CaseResult& r = result.cases[to_run[k]];
    if (progress) progress(k, to_run.size(), r.op + " " + r.case_id);
    std::optional<Reference> ref;
    try {
      ref = references.take(k);
    } catch (const std::exception& e) {
      fail(r, "cannot compute the cpu_ref reference: " + error_text(e));
    }
    if (ref) {
      try {
        run_case(sel, *ref, o.target, loop, *device, r);
      } catch (const std::exception& e) {
        discard_timings(device->timer());
        fail(r, error_text(e));
      }
    }
    if (r.floor && r.time) {
      r.efficiency = efficiency(r.floor->us, r.time->median_us);
      r.verdict = verdict(*r.efficiency);
    }
    if (r.time && r.baseline_time) r.vs_baseline = r.baseline_time->median_us / r.time->median_us;
  }
  if (progress) progress(to_run.size(), to_run.size(), "");
  return result;
}

}  // namespace tileops::bench
