#pragma once
// Which workload cases a run covers: ops named, plus every op of the families named
// (all ops when neither is given), narrowed to rows whose label or case id is listed.
#include <tileops/manifest/op_spec.hpp>
#include <tileops/manifest/workload.hpp>

#include <string>
#include <vector>

namespace tileops::bench {

struct Selection {
  std::vector<std::string> ops;
  std::vector<std::string> families;
  std::vector<std::string> labels;  // row labels or case ids; empty: every case
};

struct SelectedCase {
  const manifest::OpSpec* spec;
  manifest::WorkloadCase workload;
};

// In manifest order. ValueError for an unknown op (with suggestions) or family, or when
// a label matches no case of the selected ops.
std::vector<SelectedCase> select_cases(const Selection& selection);

}  // namespace tileops::bench
