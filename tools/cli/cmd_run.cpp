// tileops run OP: runs one op on random inputs from a workload case (or the shapes
// given), on a chosen device and target; prints what went in, what came out, and the
// time per call.
#include "commands.hpp"
#include "output.hpp"

#include "tensor_values.hpp"
#include "workload_inputs.hpp"

#include <tileops/tileops.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <iostream>

namespace tileops::cli {
namespace {

struct RunOptions {
  std::string op;
  std::string case_id;
  std::string device = "cpu";
  std::string target;
  int repeat = 5;
  bool list = false;
  std::vector<std::string> shapes;  // name=AxBxC
};

// "2048x4096" (or "scalar") -> dims; ValueError naming the text otherwise.
Dims parse_dims(const std::string& text) {
  Dims dims;
  if (text == "scalar") return dims;
  size_t start = 0;
  while (true) {
    size_t x = text.find('x', start);
    std::string item = text.substr(start, x - start);
    int64_t d = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || d < 0)
      throw ValueError("--shape: '" + text + "' is not a shape: expected sizes joined by 'x', e.g. 2048x4096, or 'scalar'");
    dims.push_back(d);
    if (x == std::string::npos) return dims;
    start = x + 1;
  }
}

const manifest::WorkloadCase& pick(const std::vector<manifest::WorkloadCase>& cases,
                                   const std::string& id) {
  if (id.empty()) return cases.front();
  for (const auto& c : cases)
    if (c.id == id || c.label == id) return c;
  std::vector<std::string> ids;
  for (const auto& c : cases) ids.push_back(c.id);
  throw ValueError("no workload case '" + id + "'; the cases are: " + join(ids));
}

void run(const RunOptions& o) {
  auto cases = tooling::cases_of(o.op);
  if (o.list) {
    for (const auto& c : cases) std::cout << c.id << "\n";
    return;
  }
  std::vector<std::pair<std::string, Dims>> shapes;
  for (const auto& s : o.shapes) {
    auto eq = s.find('=');
    if (eq == std::string::npos) throw ValueError("--shape takes INPUT=AxB, got '" + s + "'");
    shapes.emplace_back(s.substr(0, eq), parse_dims(s.substr(eq + 1)));
  }
  const manifest::WorkloadCase c = tooling::reshaped(o.op, pick(cases, o.case_id), shapes);
  Device device = Device::parse(o.device);
  Target target;
  if (!o.target.empty()) target = o.target;
  Op op(o.op, c.params, target);
  auto names = op.input_names();
  auto inputs = tooling::make_inputs(c, device, 42);
  std::cout << o.op << " case " << c.id << "\n";
  for (const auto& p : op.params()) std::cout << "  param  " << p.name << " = " << to_string(p.value) << "\n";
  for (size_t i = 0; i < inputs.size(); ++i)
    std::cout << "  input  " << names[i] << ": "
              << (inputs[i].defined() ? tooling::describe(inputs[i]) : std::string("(omitted)")) << "\n";
  std::vector<Tensor> outputs = op(inputs);  // the first call builds
  synchronize(device);
  std::vector<double> times;
  for (int r = 0; r < o.repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    outputs = op(inputs);
    synchronize(device);
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  auto out_names = op.output_names();
  for (size_t j = 0; j < outputs.size(); ++j)
    std::cout << "  output " << out_names[j] << ": " << tooling::describe(outputs[j]) << "\n";
  std::cout << "  target " << op.target().value_or("?") << "\n";
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    std::cout << "  time   " << times[times.size() / 2] << " us per call (median of " << times.size()
              << ", host clock, synchronized)\n";
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run one op on random inputs from a workload case");
  static RunOptions o;
  cmd->add_option("op", o.op, "the op, e.g. RMSNormFwdOp")->required();
  cmd->add_option("--case", o.case_id, "a workload case id or row label (default: the first case)");
  cmd->add_option("--shape", o.shapes, "override an input's shape: INPUT=AxBxC (or INPUT=scalar)");
  cmd->add_option("--device", o.device, "the device, e.g. cpu, cuda:0");
  cmd->add_option("--target", o.target, "a target name, or 'builtin' (default: decided from the device)");
  cmd->add_option("--repeat", o.repeat, "timed calls after the first");
  cmd->add_flag("--list", o.list, "list the op's workload cases and exit");
  cmd->callback([] { run(o); });
}

}  // namespace tileops::cli
