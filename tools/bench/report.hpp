#pragma once
// The reports of a run: a Markdown page for docs/perf/, CSV and JSON (schema
// tileops.bench/1, see docs/cli.md) for tools, and a roofline plot as SVG text.
#include "results.hpp"

#include <string>

namespace tileops::bench {

std::string markdown_report(const BenchResult& result);
std::string csv_report(const BenchResult& result);
std::string json_report(const BenchResult& result);
// Arithmetic intensity against achieved TFLOP/s, log-log: one point per timed case, the
// bandwidth roof and the compute roofs the cases run under.
std::string svg_roofline(const BenchResult& result);

// Writes `text` to `path`, creating missing parent directories; ValueError when it cannot.
void write_report(const std::string& path, const std::string& text);

}  // namespace tileops::bench
