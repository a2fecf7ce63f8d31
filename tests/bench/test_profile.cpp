// Device profiles: the shipped H200 profile, parse errors, and the YAML --calibrate
// writes reading back the same.
#include "profile.hpp"

#include <tileops/errors.hpp>

#include <doctest/doctest.h>

using namespace tileops;
using namespace tileops::bench;

TEST_CASE("the H200 profile is compiled in and found by the CUDA device name") {
  const auto p = builtin_profile_for("NVIDIA H200");
  REQUIRE(p);
  CHECK(p->id == "h200");
  CHECK(p->bandwidth_tbps > 4);
  CHECK(p->peaks_tflops.count("cuda_core_fp32_tflops") == 1);
  CHECK(p->peaks_tflops.count("tensor_core_bf16_tflops") == 1);
  CHECK_FALSE(builtin_profile_for("NVIDIA H200 NVL"));  // names match exactly
}

TEST_CASE("a malformed profile names the file and the key") {
  CHECK_THROWS_WITH_AS(parse_profile("bandwidth_tbps: 1\npeaks: {a: 1}\n", "x", "x.yaml"),
                       doctest::Contains("x.yaml: 'name'"), ValueError);
  CHECK_THROWS_WITH_AS(parse_profile("name: G\nbandwidth_tbps: -1\npeaks: {a: 1}\n", "x", "x.yaml"),
                       doctest::Contains("'bandwidth_tbps' must be positive"), ValueError);
  CHECK_THROWS_WITH_AS(parse_profile("name: G\nbandwidth_tbps: 1\npeaks: {a: fast}\n", "x", "x.yaml"),
                       doctest::Contains("'peaks.a' must be a number"), ValueError);
  CHECK_THROWS_WITH_AS(parse_profile("name: G\nbandwidth_tbps: 1\npeaks: {a: 1}\ncalibration: {date: 2030-01-01}\n",
                                     "x", "x.yaml"),
                       doctest::Contains("'calibration.copy_tbps'"), ValueError);
  CHECK_THROWS_WITH_AS(parse_profile("- name\n", "x", "x.yaml"), "x.yaml: a profile is a mapping", ValueError);
  CHECK_THROWS_WITH_AS(parse_profile("name: ''\nbandwidth_tbps: 1\npeaks: {a: 1}\n", "x", "x.yaml"),
                       "x.yaml: 'name' must be a non-empty string", ValueError);
  CHECK_THROWS_WITH_AS(parse_profile("name: G\nbandwidth_tbps: 1\npeaks: {}\n", "x", "x.yaml"),
                       "x.yaml: 'peaks' must map names to TFLOP/s", ValueError);
  CHECK_THROWS_WITH_AS(load_profile("/nonexistent/h100.yaml"), "cannot read the device profile /nonexistent/h100.yaml",
                       ValueError);
}

TEST_CASE("a calibrated profile written and read back is the same") {
  DeviceProfile p = *builtin_profile_for("NVIDIA H200");
  p.calibration = Calibration{"2030-01-02", 4.21, 701.5};
  const std::string yaml = profile_yaml(p);
  CHECK(yaml.starts_with("# Device profile for `tileops bench`"));
  const DeviceProfile back = parse_profile(yaml, "h200", "written");
  CHECK(back.name == p.name);
  CHECK(back.bandwidth_tbps == p.bandwidth_tbps);
  CHECK(back.peaks_tflops == p.peaks_tflops);
  REQUIRE(back.calibration);
  CHECK(back.calibration->date == "2030-01-02");
  CHECK(back.calibration->copy_tbps == 4.21);
  CHECK(back.calibration->gemm_bf16_tflops == 701.5);
}
