// A wrong fp8_quant kernel (tests/integration/test_model_op_specs.cpp): the right scales per
// 128-column block, but x * (448 / a) truncated toward zero to e4m3 instead of rounded to nearest
// even (a cast through the mantissa bits that forgets the rounding).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

float widen(uint16_t bits) {  // bf16 is the top half of an f32
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// f32 -> e4m3, round to nearest even, finite values beyond 448 saturate to 448, NaN to 0x7f.
uint8_t to_e4m3(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint8_t sign = uint8_t((u >> 24) & 0x80);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) return sign | 0x7f;
  float a;
  std::memcpy(&a, &u, sizeof a);
  if (a >= 448.0f) return sign | 0x7e;
  if (a < 0.015625f) return sign | uint8_t(std::trunc(a * 512.0f));  // subnormal: m * 2^-9 (8 is 2^-6)
  const uint32_t r = u >> 20;                                              // WRONG: truncated toward zero
  return sign | uint8_t(std::min<uint32_t>(r - (120u << 3), 0x7e));       // exponent bias 127 -> 7
}
}  // namespace

extern "C" void kwb_fp8_quant_bf16_per_block(const uint16_t* x, uint8_t* q, float* scale_block, int64_t tokens,
                                             int64_t hidden) {
  const int64_t blocks = (hidden + 127) / 128;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c0 = t * hidden + b * 128, n = std::min<int64_t>(128, hidden - b * 128);
      float amax = 0.0f;
      for (int64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(widen(x[c0 + i])));
      const float a = std::max(amax, 1e-4f), inv = 448.0f / a;
      for (int64_t i = 0; i < n; ++i) q[c0 + i] = to_e4m3(widen(x[c0 + i]) * inv);
      scale_block[t * blocks + b] = a / 448.0f;
    }
}
