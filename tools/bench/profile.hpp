#pragma once
// Device profiles: what one GPU model can do, nominally (vendor data sheet) and as
// measured by `tileops bench --calibrate`. Shipped as manifest/profiles/<id>.yaml and
// compiled in; a run can name another file with --profile.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::bench {

struct Calibration {
  std::string date;               // YYYY-MM-DD
  double copy_tbps = 0;           // device-to-device copy, read + written bytes
  double gemm_bf16_tflops = 0;    // cuBLASLt bf16 GEMM
};

struct DeviceProfile {
  std::string id;                  // the file's stem: "h200"
  std::string name;                // the device name it applies to: "NVIDIA H200"
  double bandwidth_tbps = 0;       // nominal memory bandwidth
  std::map<std::string, double> peaks_tflops;  // "cuda_core_fp32_tflops", "tensor_core_bf16_tflops", ...
  std::optional<Calibration> calibration;
};

// Parses one profile; ValueError names `source` and the key at fault.
DeviceProfile parse_profile(std::string_view yaml, std::string id, const std::string& source);
DeviceProfile load_profile(const std::string& path);
// The YAML text save_profile writes: a comment, then name, bandwidth, peaks, calibration.
std::string profile_yaml(const DeviceProfile& profile);
void save_profile(const DeviceProfile& profile, const std::string& path);

// The compiled-in profiles (manifest/profiles/*.yaml).
std::vector<DeviceProfile> builtin_profiles();
// The compiled-in profile whose name is exactly `device_name`.
std::optional<DeviceProfile> builtin_profile_for(std::string_view device_name);

}  // namespace tileops::bench
