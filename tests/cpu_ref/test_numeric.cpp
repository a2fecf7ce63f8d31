// float16 / bfloat16 conversions, checked exhaustively or against an independent
// rounding: the nearest value found by searching the table of every finite value of the
// format (built from the format's definition), ties to the even bit pattern.
#include "harness.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace cr = tileops::cpu_ref;

namespace {

bool f16_is_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }
bool bf16_is_nan(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0; }

// The value of a finite, non-negative float16 pattern, from the IEEE definition.
double f16_value(uint16_t h) {
  const int exp = h >> 10, mant = h & 0x3FF;
  return exp == 0 ? std::ldexp(double(mant), -24) : std::ldexp(1.0 + mant / 1024.0, exp - 15);
}
// The same for bfloat16 (8 exponent bits, 7 mantissa bits).
double bf16_value(uint16_t b) {
  const int exp = b >> 7, mant = b & 0x7F;
  return exp == 0 ? std::ldexp(double(mant), -133) : std::ldexp(1.0 + mant / 128.0, exp - 127);
}

// A format's non-negative finite values in pattern order (= ascending), and where its
// rounding overflows: the midpoint between the largest value and the next power of two.
struct Format {
  std::vector<double> values;
  double overflow;
  uint16_t inf;
};

Format make_format(uint16_t inf, double (*value)(uint16_t), double next_binade) {
  Format f{{}, 0, inf};
  for (uint32_t b = 0; b < inf; ++b) f.values.push_back(value(uint16_t(b)));
  f.overflow = f.values.back() + (next_binade - f.values.back()) / 2;
  return f;
}
const Format& f16_format() {
  static const Format f = make_format(0x7C00, f16_value, 0x1p16);
  return f;
}
const Format& bf16_format() {
  static const Format f = make_format(0x7F80, bf16_value, 0x1p128);
  return f;
}

// The correctly rounded pattern of finite x: the nearest value, a tie to the even pattern.
uint16_t reference_round(const Format& f, double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= f.overflow) return sign | f.inf;  // the largest pattern is odd: a tie goes up
  const auto hi = std::lower_bound(f.values.begin(), f.values.end(), a);
  if (hi == f.values.begin()) return sign;
  if (hi == f.values.end()) return sign | uint16_t(f.values.size() - 1);
  const uint16_t h = uint16_t(hi - f.values.begin()), l = uint16_t(h - 1);
  const double dl = a - f.values[l], dh = *hi - a;
  if (dl != dh) return sign | (dl < dh ? l : h);
  return sign | (l % 2 == 0 ? l : h);
}

std::vector<uint32_t> random_float_bits(size_t n) {
  std::uniform_int_distribution<uint32_t> dist;
  std::vector<uint32_t> out(n);
  for (auto& b : out) b = dist(cpu_ref_test::rng());
  return out;
}

// Doubles spread over the float16 range and beyond, with all 52 mantissa bits random.
std::vector<double> random_doubles(size_t n, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> exp(min_exp, max_exp);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::bernoulli_distribution neg;
  std::vector<double> out(n);
  for (auto& x : out) {
    x = std::ldexp(mant(cpu_ref_test::rng()), exp(cpu_ref_test::rng()));
    if (neg(cpu_ref_test::rng())) x = -x;
  }
  return out;
}

}  // namespace

TEST_CASE("float16 -> float is exact and round-trips, every bit pattern") {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const uint16_t bits = uint16_t(h);
    const float f = cr::f16_bits_to_float(bits);
    if (f16_is_nan(bits)) {
      REQUIRE(std::isnan(f));
      REQUIRE(f16_is_nan(cr::float_to_f16_bits(f)));
      continue;
    }
    const double magnitude = (bits & 0x7FFF) == 0x7C00 ? INFINITY : f16_value(bits & 0x7FFF);
    REQUIRE(double(f) == ((bits & 0x8000) ? -magnitude : magnitude));
    REQUIRE(std::signbit(f) == bool(bits & 0x8000));
    REQUIRE(cr::float_to_f16_bits(f) == bits);
  }
}

TEST_CASE("float -> float16 rounds to nearest even") {
  auto check = [](float f) {
    const uint16_t got = cr::float_to_f16_bits(f);
    if (std::isnan(f)) {
      REQUIRE(f16_is_nan(got));
    } else if (std::isinf(f)) {
      REQUIRE(got == (f > 0 ? 0x7C00 : 0xFC00));
    } else {
      const uint16_t want = reference_round(f16_format(), f);
      INFO("float " << f << " bits 0x" << std::hex << std::bit_cast<uint32_t>(f));
      REQUIRE(got == want);
    }
  };
  for (uint32_t b : random_float_bits(1 << 20)) check(std::bit_cast<float>(b));
  // every float from just below the smallest subnormal to beyond the largest float16,
  // sampled densely around each float16 value and midpoint
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    const float v = float(f16_value(uint16_t(h)));
    for (int64_t k = -3; k <= 3; ++k) {
      const int64_t bits = int64_t(std::bit_cast<uint32_t>(v)) + k;
      if (bits < 0) continue;
      const float near = std::bit_cast<float>(uint32_t(bits));
      check(near);
      check(-near);
    }
    const float next = float(f16_value(uint16_t(h + 1)));
    const float mid = v + (next - v) / 2;  // exact: a float has room for the midpoint
    check(mid);
    check(std::nextafter(mid, 0.0f));
    check(std::nextafter(mid, 1e30f));
  }
  for (float f : {0.0f, -0.0f, 65504.0f, 65519.996f, 65520.0f, 1e30f,
                  std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), 0x1p-25f, 0x1.000002p-25f, 0x1p-24f,
                  0x1.8p-24f, 0x1p-14f, 0x1.ffcp-15f})
    check(f);
}

TEST_CASE("double -> float16 rounds once (no double-rounding error)") {
  for (double x : random_doubles(1 << 20, -30, 17)) {
    INFO("double " << x);
    REQUIRE(cr::from_double<cr::f16>(x).bits == reference_round(f16_format(), x));
  }
  // just above and below each midpoint: rounding to float first would land on the
  // midpoint and then break the tie the wrong way
  for (uint32_t h = 0; h < 0x7BFF; h += 7) {
    const double a = f16_value(uint16_t(h)), b = f16_value(uint16_t(h + 1));
    const double mid = (a + b) / 2;
    for (double x : {mid, mid + mid * 0x1p-40, mid - mid * 0x1p-40}) {
      if (x == 0) continue;
      INFO("double " << x);
      REQUIRE(cr::from_double<cr::f16>(x).bits == reference_round(f16_format(), x));
      REQUIRE(cr::from_double<cr::f16>(-x).bits == reference_round(f16_format(), -x));
    }
  }
  CHECK(cr::from_double<cr::f16>(1e300).bits == 0x7C00);
  CHECK(cr::from_double<cr::f16>(-1e300).bits == 0xFC00);
  CHECK(cr::from_double<cr::f16>(1e-300).bits == 0x0000);
  CHECK(f16_is_nan(cr::from_double<cr::f16>(std::nan("")).bits));
}

TEST_CASE("bfloat16 -> float is exact and round-trips, every bit pattern") {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const float f = cr::bf16_bits_to_float(uint16_t(b));
    REQUIRE(std::bit_cast<uint32_t>(f) == b << 16);
    if ((b & 0x7F80) != 0x7F80) {  // finite: the value the format defines
      REQUIRE(std::fabs(double(f)) == bf16_value(uint16_t(b & 0x7FFF)));
      REQUIRE(std::signbit(f) == bool(b & 0x8000));
    }
    if (bf16_is_nan(uint16_t(b)))
      REQUIRE(bf16_is_nan(cr::float_to_bf16_bits(f)));
    else
      REQUIRE(cr::float_to_bf16_bits(f) == b);
  }
}

TEST_CASE("float -> bfloat16 and double -> bfloat16 round to nearest even") {
  for (uint32_t bits : random_float_bits(1 << 18)) {
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) {
      REQUIRE(bf16_is_nan(cr::float_to_bf16_bits(f)));
      continue;
    }
    INFO("float bits 0x" << std::hex << bits);
    REQUIRE(cr::float_to_bf16_bits(f) == reference_round(bf16_format(), f));
  }
  for (double x : random_doubles(1 << 18, -135, 129)) {
    INFO("double " << x);
    REQUIRE(cr::from_double<cr::bf16>(x).bits == reference_round(bf16_format(), x));
  }
  for (uint32_t b = 0; b < 0x7F7F; b += 5) {  // near each midpoint, and the midpoint itself
    const double lo = bf16_value(uint16_t(b)), hi = bf16_value(uint16_t(b + 1));
    const double mid = (lo + hi) / 2;
    for (double x : {mid, mid + mid * 0x1p-40, mid - mid * 0x1p-40}) {
      if (x == 0) continue;
      INFO("double " << x);
      REQUIRE(cr::from_double<cr::bf16>(x).bits == reference_round(bf16_format(), x));
    }
  }
  CHECK(cr::float_to_bf16_bits(std::numeric_limits<float>::infinity()) == 0x7F80);
  CHECK(cr::float_to_bf16_bits(std::numeric_limits<float>::max()) == 0x7F80);  // rounds up
  CHECK(cr::from_double<cr::bf16>(1e300).bits == 0x7F80);
  CHECK(cr::from_double<cr::bf16>(-0.0).bits == 0x8000);
  CHECK(bf16_is_nan(cr::from_double<cr::bf16>(std::nan("")).bits));
}

TEST_CASE("machine_epsilon is torch.finfo(dtype).eps") {
  CHECK(cr::machine_epsilon<float>() == double(std::numeric_limits<float>::epsilon()));
  CHECK(cr::machine_epsilon<float>() == doctest::Approx(1.1920929e-07));
  CHECK(cr::machine_epsilon<cr::f16>() == 0.0009765625);
  CHECK(cr::machine_epsilon<cr::bf16>() == 0.0078125);
}
