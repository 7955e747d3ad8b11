#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/dtype.hpp"

namespace kwb::core {
namespace {

const DType k_all[] = {DType::f32, DType::f64, DType::bf16, DType::f16,
                       DType::i32, DType::u32, DType::i64, DType::u8};

float bits_to_float(uint32_t b) { return std::bit_cast<float>(b); }

TEST(DType, Sizes) {
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_EQ(dtype_size(DType::u32), 4u);
  EXPECT_EQ(dtype_size(DType::i64), 8u);
  EXPECT_EQ(dtype_size(DType::u8), 1u);
}

TEST(DType, NamesRoundTripThroughParse) {
  for (DType t : k_all) {
    auto back = parse_dtype(dtype_name(t));
    ASSERT_TRUE(back.has_value()) << dtype_name(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_EQ(dtype_name(DType::bf16), "bf16");
  EXPECT_EQ(dtype_name(DType::u8), "u8");
}

TEST(DType, UnknownNamesAreNullopt) {
  for (const char* n : {"", "float", "F32", "f8", "bfloat16", "f32 ", "i16", "?"})
    EXPECT_FALSE(parse_dtype(n).has_value()) << "'" << n << "'";
}

TEST(DType, IsInteger) {
  EXPECT_TRUE(dtype_is_integer(DType::i32));
  EXPECT_TRUE(dtype_is_integer(DType::u32));
  EXPECT_TRUE(dtype_is_integer(DType::i64));
  EXPECT_TRUE(dtype_is_integer(DType::u8));
  EXPECT_FALSE(dtype_is_integer(DType::f32));
  EXPECT_FALSE(dtype_is_integer(DType::f64));
  EXPECT_FALSE(dtype_is_integer(DType::bf16));
  EXPECT_FALSE(dtype_is_integer(DType::f16));
}

TEST(Bf16, ExactValuesRoundTrip) {
  for (float v : {0.0f, 1.0f, -2.0f, 0.5f, 3.0f, 1.0078125f, -65536.0f}) {
    EXPECT_EQ(bf16_to_float(float_to_bf16(v)), v) << v;
  }
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
}

TEST(Bf16, SignedZeroKeepsItsSign) {
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_TRUE(std::signbit(bf16_to_float(0x8000)));
}

TEST(Bf16, RoundsToNearestEven) {
  // 1 + 2^-8 is exactly halfway between bf16 1.0 (0x3f80) and 1 + 2^-7 (0x3f81): ties to even.
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f808000)), 0x3f80);
  // 1 + 3*2^-8 is halfway between 0x3f81 (odd) and 0x3f82 (even): rounds up to even.
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f818000)), 0x3f82);
  // Just above and just below the halfway point.
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f808001)), 0x3f81);
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f807fff)), 0x3f80);
  // Negative numbers round symmetrically.
  EXPECT_EQ(float_to_bf16(bits_to_float(0xbf808000)), 0xbf80);
  EXPECT_EQ(float_to_bf16(bits_to_float(0xbf818000)), 0xbf82);
  // Rounding carries into the exponent.
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3fffffff)), 0x4000);
}

TEST(Bf16, NanStaysNan) {
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(-std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload sits only in the low 16 bits would round to Inf without special care.
  const float low_payload_nan = bits_to_float(0x7f800001);
  ASSERT_TRUE(std::isnan(low_payload_nan));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(low_payload_nan))));
  // A NaN with all-ones payload must not carry into the sign bit.
  const float ones_nan = bits_to_float(0x7fffffff);
  uint16_t b = float_to_bf16(ones_nan);
  EXPECT_TRUE(std::isnan(bf16_to_float(b)));
  EXPECT_FALSE(std::signbit(bf16_to_float(b)));
}

TEST(Bf16, InfinitiesStayInfinite) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_bf16(inf), 0x7f80);
  EXPECT_EQ(float_to_bf16(-inf), 0xff80);
  EXPECT_EQ(bf16_to_float(0x7f80), inf);
  EXPECT_EQ(bf16_to_float(0xff80), -inf);
  // FLT_MAX is beyond the largest bf16 (0x7f7f) by more than half an ulp: overflows to Inf.
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
}

TEST(Bf16, SubnormalsAreKept) {
  const float denorm = bits_to_float(0x00010000);  // a bf16-representable f32 subnormal
  ASSERT_EQ(std::fpclassify(denorm), FP_SUBNORMAL);
  EXPECT_EQ(float_to_bf16(denorm), 0x0001);
  EXPECT_EQ(bf16_to_float(0x0001), denorm);
}

// f16 is reached through store_from_double / load_as_double.
uint16_t to_f16(double v) {
  uint16_t h = 0;
  store_from_double(&h, DType::f16, 0, v);
  return h;
}
double from_f16(uint16_t h) { return load_as_double(&h, DType::f16, 0); }

TEST(F16, ExactValues) {
  EXPECT_EQ(to_f16(0.0), 0x0000);
  EXPECT_EQ(to_f16(-0.0), 0x8000);
  EXPECT_EQ(to_f16(1.0), 0x3c00);
  EXPECT_EQ(to_f16(-2.0), 0xc000);
  EXPECT_EQ(to_f16(0.5), 0x3800);
  EXPECT_EQ(to_f16(65504.0), 0x7bff);               // largest f16
  EXPECT_EQ(to_f16(std::ldexp(1.0, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(to_f16(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(from_f16(0x3c00), 1.0);
  EXPECT_EQ(from_f16(0xc000), -2.0);
  EXPECT_EQ(from_f16(0x7bff), 65504.0);
  EXPECT_EQ(from_f16(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(from_f16(0x03ff), std::ldexp(1023.0, -24));
  EXPECT_TRUE(std::signbit(from_f16(0x8000)));
}

TEST(F16, RoundsToNearestEvenAndOverflowsToInf) {
  // 1 + 2^-11 is halfway between 1.0 (0x3c00) and 1 + 2^-10 (0x3c01): ties to even.
  EXPECT_EQ(to_f16(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(to_f16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  EXPECT_EQ(to_f16(65519.0), 0x7bff);
  EXPECT_EQ(to_f16(65520.0), 0x7c00);
  EXPECT_EQ(to_f16(-1e6), 0xfc00);
  EXPECT_EQ(to_f16(INFINITY), 0x7c00);
  EXPECT_TRUE(std::isinf(from_f16(0x7c00)));
  EXPECT_TRUE(std::isnan(from_f16(to_f16(NAN))));
}

TEST(LoadStore, EveryDTypeRoundTripsRepresentableValues) {
  for (DType t : k_all) {
    std::vector<unsigned char> buf(dtype_size(t) * 4, 0xAB);
    const double values[] = {0, 1, 100, dtype_is_integer(t) && t != DType::i32 && t != DType::i64 ? 7.0 : -3.0};
    for (size_t i = 0; i < 4; ++i) store_from_double(buf.data(), t, i, values[i]);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(load_as_double(buf.data(), t, i), values[i]) << dtype_name(t) << " " << i;
  }
}

TEST(LoadStore, WritesOnlyTheAddressedElement) {
  for (DType t : k_all) {
    const size_t n = dtype_size(t);
    std::vector<unsigned char> buf(n * 3, 0xAB);
    store_from_double(buf.data(), t, 1, 1.0);
    for (size_t k = 0; k < n; ++k) {
      EXPECT_EQ(buf[k], 0xAB) << dtype_name(t);
      EXPECT_EQ(buf[2 * n + k], 0xAB) << dtype_name(t);
    }
  }
}

TEST(LoadStore, PerTypeRepresentation) {
  float f[1];
  store_from_double(f, DType::f32, 0, 0.1);
  EXPECT_EQ(f[0], 0.1f);

  double d[1];
  store_from_double(d, DType::f64, 0, 0.1);
  EXPECT_EQ(d[0], 0.1);

  uint16_t b[1];
  store_from_double(b, DType::bf16, 0, 1.0);
  EXPECT_EQ(b[0], 0x3f80);
  store_from_double(b, DType::bf16, 0, 1.0 + std::ldexp(1.0, -8));  // tie -> even
  EXPECT_EQ(b[0], 0x3f80);

  int32_t i[1];
  store_from_double(i, DType::i32, 0, -123456.0);
  EXPECT_EQ(i[0], -123456);

  uint32_t u[1];
  store_from_double(u, DType::u32, 0, 4000000000.0);
  EXPECT_EQ(u[0], 4000000000u);
  EXPECT_EQ(load_as_double(u, DType::u32, 0), 4000000000.0);

  int64_t l[1];
  store_from_double(l, DType::i64, 0, -9007199254740992.0);  // -2^53
  EXPECT_EQ(l[0], -9007199254740992LL);

  uint8_t c[2];
  store_from_double(c, DType::u8, 0, 255.0);
  store_from_double(c, DType::u8, 1, 0.0);
  EXPECT_EQ(c[0], 255);
  EXPECT_EQ(c[1], 0);
  EXPECT_EQ(load_as_double(c, DType::u8, 0), 255.0);
}

TEST(LoadStore, Bf16DecodesExactly) {
  const uint16_t bits[] = {0x3f81, 0xc2f7, 0x0001};
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(load_as_double(bits, DType::bf16, i), double(bf16_to_float(bits[i])));
  EXPECT_EQ(load_as_double(bits, DType::bf16, 0), 1.0078125);
}

// Rounding a double straight to bf16 must not round twice (double -> f32 -> bf16): a value just
// above a bf16 halfway point must round up even when its f32 rounding lands on the halfway point.
TEST(LoadStore, Bf16StoreRoundsTheDoubleOnce) {
  const double v = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);  // above the 1.0 / 1+2^-7 midpoint
  uint16_t b = 0;
  store_from_double(&b, DType::bf16, 0, v);
  EXPECT_EQ(b, 0x3f81) << "double-rounded to " << bf16_to_float(b);
}

}  // namespace
}  // namespace kwb::core

namespace kwb::core {
namespace {

// fp8 (OCP e4m3 and e5m2, as __nv_fp8_e4m3 / __nv_fp8_e5m2): every code decodes to a value that
// encodes back to it, the ends of the ranges and the rounding are the formats'.
TEST(Fp8, EveryCodeRoundTrips) {
  for (int c = 0; c < 256; ++c) {
    const uint8_t code = uint8_t(c);
    const float a = f8e4m3_to_float(code), b = f8e5m2_to_float(code);
    if (std::isnan(a)) EXPECT_EQ(code & 0x7f, 0x7f);
    else EXPECT_EQ(double_to_f8e4m3(a), code) << c;
    if (std::isnan(b)) EXPECT_GT(code & 0x7f, 0x7c);
    else EXPECT_EQ(double_to_f8e5m2(b), code) << c;
  }
}

TEST(Fp8, RangesRoundingAndSaturation) {
  EXPECT_EQ(f8e4m3_to_float(0x7e), 448.0f);
  EXPECT_EQ(f8e4m3_to_float(0x01), 0x1p-9f);  // smallest subnormal
  EXPECT_EQ(f8e4m3_to_float(0x08), 0x1p-6f);  // smallest normal
  EXPECT_EQ(f8e5m2_to_float(0x7b), 57344.0f);
  EXPECT_TRUE(std::isinf(f8e5m2_to_float(0x7c)));
  EXPECT_EQ(f8e5m2_to_float(0x01), 0x1p-16f);
  EXPECT_EQ(double_to_f8e4m3(1000.0), 0x7e);   // saturates (no infinity in e4m3)
  EXPECT_EQ(double_to_f8e4m3(-1e30), 0xfe);
  EXPECT_EQ(double_to_f8e4m3(INFINITY), 0x7e);
  EXPECT_EQ(double_to_f8e5m2(1e6), 0x7b);      // finite values saturate
  EXPECT_EQ(double_to_f8e5m2(-INFINITY), 0xfc);  // an infinity stays one
  EXPECT_EQ(double_to_f8e4m3(NAN) & 0x7f, 0x7f);
  EXPECT_EQ(f8e4m3_to_float(double_to_f8e4m3(1.0625)), 1.0f);   // halfway 1 and 1.125: to even (1)
  EXPECT_EQ(f8e4m3_to_float(double_to_f8e4m3(1.1875)), 1.25f);  // halfway 1.125 and 1.25: to even (1.25)
  EXPECT_EQ(f8e4m3_to_float(double_to_f8e4m3(1.07)), 1.125f);
  EXPECT_EQ(double_to_f8e4m3(-0.0), 0x80);
  EXPECT_EQ(f8e4m3_to_float(double_to_f8e4m3(0x1p-11)), 0.0f);  // below half the smallest subnormal
}

TEST(Fp8, DtypesStoreAndLoad) {
  uint8_t buf[3] = {};
  store_from_double(buf, DType::f8e4m3, 0, 3.3);
  store_from_double(buf, DType::f8e5m2, 1, -3.3);
  store_from_double(buf, DType::i8, 2, -7);
  EXPECT_EQ(load_as_double(buf, DType::f8e4m3, 0), 3.25);
  EXPECT_EQ(load_as_double(buf, DType::f8e5m2, 1), -3.5);
  EXPECT_EQ(load_as_double(buf, DType::i8, 2), -7);
  EXPECT_EQ(dtype_size(DType::f8e4m3), 1u);
  EXPECT_EQ(parse_dtype("f8e5m2"), DType::f8e5m2);
  EXPECT_EQ(parse_dtype("i8"), DType::i8);
  EXPECT_TRUE(dtype_is_integer(DType::i8));
  EXPECT_TRUE(dtype_is_fp8(DType::f8e4m3));
  EXPECT_FALSE(dtype_is_integer(DType::f8e4m3));
}

}  // namespace
}  // namespace kwb::core
