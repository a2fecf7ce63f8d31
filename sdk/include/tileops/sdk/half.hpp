#pragma once
// float16 and bfloat16 as 16-bit patterns, and exact conversions to and from float
// (round to nearest, ties to even, like a hardware conversion). Header-only, for
// plugins and host tools alike.
#include <bit>
#include <cstdint>

namespace tileops::sdk {

// ---- float16 ---------------------------------------------------------------------

// Exact: every float16 is a float.
inline float f16_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    const float magnitude = float(mant) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | sign);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));  // inf, NaN
  return std::bit_cast<float>(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

// Rounds to nearest, ties to even; overflow gives inf, NaN stays NaN (quiet).
inline uint16_t float_to_f16_bits(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint32_t out;
  if (u >= (127u + 16u) << 23) {  // |f| >= 2^16, inf or NaN: all exponent bits set
    out = u > 0x7F800000u ? 0x7E00u | ((u >> 13) & 0x3FFu) : 0x7C00u;
  } else if (u < (127u - 14u) << 23) {  // below 2^-14: a float16 subnormal or zero
    // Adding 0.5 aligns the float16 subnormal grid (2^-24) with the float's last
    // mantissa bit, so the float addition itself rounds to nearest even.
    const float aligned = std::bit_cast<float>(u) + 0.5f;
    out = std::bit_cast<uint32_t>(aligned) - std::bit_cast<uint32_t>(0.5f);
  } else {
    const uint32_t mant_odd = (u >> 13) & 1u;
    u += (uint32_t(15 - 127) << 23) + 0xFFFu + mant_odd;  // rebias and round
    out = u >> 13;  // a carry out of the mantissa rounds up to the next binade or inf
  }
  return uint16_t(out | (sign >> 16));
}

// ---- bfloat16 --------------------------------------------------------------------

inline float bf16_bits_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

// Rounds to nearest, ties to even; overflow gives inf, NaN stays NaN (quiet).
inline uint16_t float_to_bf16_bits(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((u >> 16) | 0x0040u);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace tileops::sdk
