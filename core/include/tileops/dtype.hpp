#pragma once
// tileops::DType: an element type with DLPack's codes, bits and lanes.
#include <tileops/abi.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace tileops {

struct DType {
  uint8_t code = TILEOPS_DTYPE_FLOAT;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  constexpr bool operator==(const DType&) const = default;
  constexpr size_t itemsize() const { return (size_t(bits) * lanes + 7) / 8; }
  constexpr bool is_floating() const {
    return code == TILEOPS_DTYPE_FLOAT || code == TILEOPS_DTYPE_BFLOAT ||
           code == TILEOPS_DTYPE_FLOAT8_E4M3FN || code == TILEOPS_DTYPE_FLOAT8_E5M2;
  }
  constexpr bool is_integral() const {
    return code == TILEOPS_DTYPE_INT || code == TILEOPS_DTYPE_UINT || code == TILEOPS_DTYPE_BOOL;
  }
  constexpr tileops_dtype to_c() const { return {code, bits, lanes}; }
  static constexpr DType from_c(tileops_dtype d) { return {d.code, d.bits, d.lanes}; }
  // A stable small integer for hashing and table indexing.
  constexpr uint32_t packed() const { return uint32_t(code) << 24 | uint32_t(bits) << 16 | lanes; }

  // The manifest spelling: "float32", "bfloat16", "int64", ...; "dtype(c,b,l)" otherwise.
  std::string_view name() const;
  static std::optional<DType> parse(std::string_view name);
};

namespace dtypes {
inline constexpr DType float32{TILEOPS_DTYPE_FLOAT, 32, 1};
inline constexpr DType float64{TILEOPS_DTYPE_FLOAT, 64, 1};
inline constexpr DType float16{TILEOPS_DTYPE_FLOAT, 16, 1};
inline constexpr DType bfloat16{TILEOPS_DTYPE_BFLOAT, 16, 1};
inline constexpr DType float8_e4m3fn{TILEOPS_DTYPE_FLOAT8_E4M3FN, 8, 1};
inline constexpr DType float8_e5m2{TILEOPS_DTYPE_FLOAT8_E5M2, 8, 1};
inline constexpr DType int8{TILEOPS_DTYPE_INT, 8, 1};
inline constexpr DType uint8{TILEOPS_DTYPE_UINT, 8, 1};
inline constexpr DType int32{TILEOPS_DTYPE_INT, 32, 1};
inline constexpr DType int64{TILEOPS_DTYPE_INT, 64, 1};
inline constexpr DType bool_{TILEOPS_DTYPE_BOOL, 8, 1};
}  // namespace dtypes

}  // namespace tileops
