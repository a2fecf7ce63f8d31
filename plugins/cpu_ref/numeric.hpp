#pragma once
// Element types of the cpu_ref kernels and the conversions between them.
//
// float16 and bfloat16 are stored as their 16-bit patterns (`f16`, `bf16`); kernels
// load every floating element as a double, compute in double, and round once when they
// store (`from_double<T>`), to nearest, ties to even, like a hardware conversion.
// Integer elements stay integers: their kernels compute exactly.
#include <tileops/sdk/half.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tileops::cpu_ref {

struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

// ---- float16 and bfloat16 bit conversions (shared with every plugin) -------------

using sdk::bf16_bits_to_float;
using sdk::f16_bits_to_float;
using sdk::float_to_bf16_bits;
using sdk::float_to_f16_bits;

// ---- double -> float, for a second rounding that stays correct ---------------------

// Rounds `x` to float toward zero and sets the last mantissa bit when inexact ("round
// to odd"). Rounding that float to float16 or bfloat16 (>= 2 fewer bits) then gives
// the correctly rounded result of `x`: no double-rounding error.
inline float double_to_float_round_odd(double x) {
  const float f = static_cast<float>(x);
  if (std::isnan(x) || double(f) == x) return f;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::fabs(double(f)) > std::fabs(x)) bits -= 1;  // step back toward zero (inf -> max)
  return std::bit_cast<float>(bits | 1u);
}

// ---- typed load and store ----------------------------------------------------------

template <class T>
inline constexpr bool is_floating_v =
    std::is_same_v<T, float> || std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

template <class T>
inline constexpr bool is_integer_v = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

inline double to_double(float x) { return x; }
inline double to_double(f16 x) { return f16_bits_to_float(x.bits); }
inline double to_double(bf16 x) { return bf16_bits_to_float(x.bits); }

// The exact value in a type where comparison is exact and cheap (amax, argmax).
inline float widen(float x) { return x; }
inline float widen(f16 x) { return f16_bits_to_float(x.bits); }
inline float widen(bf16 x) { return bf16_bits_to_float(x.bits); }
inline int32_t widen(int32_t x) { return x; }
inline int64_t widen(int64_t x) { return x; }

template <class T>
T from_double(double x);
template <>
inline float from_double<float>(double x) {
  return static_cast<float>(x);
}
template <>
inline f16 from_double<f16>(double x) {
  return f16{float_to_f16_bits(double_to_float_round_odd(x))};
}
template <>
inline bf16 from_double<bf16>(double x) {
  return bf16{float_to_bf16_bits(double_to_float_round_odd(x))};
}

template <class T>
inline bool is_nan(T x) {
  if constexpr (is_floating_v<T>)
    return std::isnan(widen(x));
  else
    return false;
}

// Two's-complement wrap-around arithmetic, as torch's integer tensors do (no UB).
template <class I>
inline I wrapping_add(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) + static_cast<U>(b));
}
template <class I>
inline I wrapping_mul(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) * static_cast<U>(b));
}

// torch.finfo(dtype).eps.
template <class T>
constexpr double machine_epsilon() {
  if constexpr (std::is_same_v<T, float>) return 0x1p-23;
  if constexpr (std::is_same_v<T, f16>) return 0x1p-10;
  if constexpr (std::is_same_v<T, bf16>) return 0x1p-7;
}

}  // namespace tileops::cpu_ref
