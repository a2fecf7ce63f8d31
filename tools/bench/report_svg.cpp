// The roofline plot, written as SVG text: log-log axes over decades, the bandwidth roof
// (throughput = intensity x bandwidth) up to each compute roof, one point per timed case
// coloured by family, its numbers in a tooltip.
#include "report.hpp"
#include "report_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace tileops::bench {
namespace {

constexpr double kWidth = 860, kHeight = 560;
constexpr double kLeft = 80, kRight = 200, kTop = 40, kBottom = 60;  // margins; the legend sits right

struct Point {
  double intensity, tflops;  // FLOP/byte, TFLOP/s
  std::string family, tip;
};

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// A log axis over whole decades.
struct LogAxis {
  double lo, hi;        // decades: 10^lo .. 10^hi
  double from, to;      // pixels
  double at(double v) const { return from + (std::log10(v) - lo) / (hi - lo) * (to - from); }
};

LogAxis decades(double min, double max, double from, double to) {
  double lo = std::floor(std::log10(min)), hi = std::ceil(std::log10(max));
  if (hi <= lo) hi = lo + 1;
  return {lo, hi, from, to};
}

const char* colour(size_t i) {
  static const char* const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                        "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  return palette[i % std::size(palette)];
}

}  // namespace

std::string svg_roofline(const BenchResult& result) {
  std::vector<Point> points;
  std::set<std::string> peak_keys;  // the compute roofs the timed cases run under
  for (const CaseResult& r : result.cases) {
    if (!r.time || r.cost.flops <= 0 || r.cost.bytes <= 0) continue;  // no place on log axes
    points.push_back({r.cost.flops / r.cost.bytes, tflops(r), r.family,
                      r.op + " " + r.case_id + ": " + text("%.2f", r.time->median_us) + " us, " +
                          text("%.3g", tflops(r)) + " TFLOP/s, " + text("%.3g", tbps(r)) + " TB/s" +
                          (r.efficiency ? ", efficiency " + text("%.2f", *r.efficiency) : "")});
    if (r.floor) peak_keys.insert(r.floor->peak);
  }
  const std::optional<Roofs>& roofs = result.info.roofs;
  std::map<std::string, double> peaks;  // drawn roofs
  if (roofs)
    for (const auto& key : peak_keys.empty() ? std::set<std::string>{"cuda_core_fp32_tflops"} : peak_keys)
      if (auto it = roofs->peaks_tflops.find(key); it != roofs->peaks_tflops.end()) peaks[key] = it->second;

  // Ranges: every point, and each roof's ridge (where bandwidth meets the peak).
  double x_min = 1e-2, x_max = 1e2, y_min = 1e-3, y_max = 1e3;
  if (!points.empty()) {
    x_min = y_min = INFINITY;
    x_max = y_max = 0;
  }
  for (const Point& p : points) {
    x_min = std::min(x_min, p.intensity), x_max = std::max(x_max, p.intensity);
    y_min = std::min(y_min, p.tflops), y_max = std::max(y_max, p.tflops);
  }
  for (const auto& [key, peak] : peaks) {
    const double ridge = peak / roofs->bandwidth_tbps;
    x_min = std::min(x_min, ridge / 10), x_max = std::max(x_max, ridge * 10);
    y_max = std::max(y_max, peak);
  }
  // Half a decade of room, so that no point sits on the frame.
  const LogAxis x = decades(x_min / 3, x_max * 3, kLeft, kWidth - kRight);
  if (!peaks.empty()) y_min = std::min(y_min, std::pow(10, x.lo) * roofs->bandwidth_tbps);  // where the roof starts
  const LogAxis y = decades(y_min / 3, y_max * 3, kHeight - kBottom, kTop);

  std::ostringstream svg;
  svg << R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" << kWidth << "\" height=\"" << kHeight
      << R"(" font-family="sans-serif" font-size="12">)" << "\n"
      << R"(<rect width="100%" height="100%" fill="white"/>)" << "\n"
      << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\">"
      << escaped("tileops bench: " + result.info.device_name + " (" + result.info.device + ", " + result.info.timing + " timing)") << "</text>\n";
  for (double d = x.lo; d <= x.hi; ++d) {
    const double px = x.at(std::pow(10, d));
    svg << "<line x1=\"" << px << "\" y1=\"" << kTop << "\" x2=\"" << px << "\" y2=\"" << kHeight - kBottom
        << R"(" stroke="#ddd"/>)" << "<text x=\"" << px << "\" y=\"" << kHeight - kBottom + 16
        << R"(" text-anchor="middle">)" << text("%g", std::pow(10, d)) << "</text>\n";
  }
  for (double d = y.lo; d <= y.hi; ++d) {
    const double py = y.at(std::pow(10, d));
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << py << "\" x2=\"" << kWidth - kRight << "\" y2=\"" << py
        << R"(" stroke="#ddd"/>)" << "<text x=\"" << kLeft - 6 << "\" y=\"" << py + 4 << R"(" text-anchor="end">)"
        << text("%g", std::pow(10, d)) << "</text>\n";
  }
  svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kWidth - kRight - kLeft << "\" height=\""
      << kHeight - kBottom - kTop << R"(" fill="none" stroke="black"/>)" << "\n"
      << "<text x=\"" << (kLeft + kWidth - kRight) / 2 << "\" y=\"" << kHeight - 18
      << R"(" text-anchor="middle">arithmetic intensity (FLOP/byte)</text>)" << "\n"
      << "<text transform=\"translate(22 " << (kTop + kHeight - kBottom) / 2
      << ") rotate(-90)\" text-anchor=\"middle\">achieved TFLOP/s</text>\n";

  if (peaks.empty()) {
    svg << "<text x=\"" << kLeft + 10 << "\" y=\"" << kTop + 18 << "\">"
        << escaped("no device profile for " + result.info.device_name + ": roofs not drawn") << "</text>\n";
  }
  for (const auto& [key, peak] : peaks) {
    const double ridge = peak / roofs->bandwidth_tbps;
    const double x0 = std::pow(10, x.lo), x1 = std::pow(10, x.hi);
    svg << "<polyline class=\"roof\" fill=\"none\" stroke=\"black\" stroke-width=\"2\" points=\"" << x.at(x0) << ','
        << y.at(x0 * roofs->bandwidth_tbps) << ' ' << x.at(ridge) << ',' << y.at(peak) << ' ' << x.at(x1) << ','
        << y.at(peak) << "\"><title>" << escaped(key + " " + text("%g", peak) + " TFLOP/s") << "</title></polyline>\n"
        << "<text x=\"" << x.at(x1) - 4 << "\" y=\"" << y.at(peak) - 6 << R"(" text-anchor="end">)"
        << escaped(key + " " + text("%g", peak)) << "</text>\n";
  }
  if (!peaks.empty())
    svg << "<text x=\"" << x.at(std::pow(10, x.lo)) + 8 << "\" y=\"" << y.at(std::pow(10, x.lo) * roofs->bandwidth_tbps) - 8
        << "\">" << text("%g", roofs->bandwidth_tbps) << " TB/s</text>\n";

  std::map<std::string, size_t> family_colour;
  for (const Point& p : points) family_colour.emplace(p.family, family_colour.size());
  for (const Point& p : points)
    svg << "<circle class=\"case\" cx=\"" << x.at(p.intensity) << "\" cy=\"" << y.at(p.tflops)
        << "\" r=\"4\" fill-opacity=\"0.7\" fill=\"" << colour(family_colour[p.family]) << "\"><title>"
        << escaped(p.tip) << "</title></circle>\n";
  double legend_y = kTop + 10;
  for (const auto& [family, i] : family_colour) {
    svg << "<circle cx=\"" << kWidth - kRight + 20 << "\" cy=\"" << legend_y << "\" r=\"5\" fill=\"" << colour(i)
        << "\"/><text x=\"" << kWidth - kRight + 32 << "\" y=\"" << legend_y + 4 << "\">" << escaped(family)
        << "</text>\n";
    legend_y += 20;
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace tileops::bench
