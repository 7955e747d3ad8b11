// A wrong fp8_quant kernel (tests/integration/test_model_op_specs.cpp): scales per tensor instead
// of per token. One amax over the whole tensor, every row's scale equal to it: right only where a
// row holds the tensor's largest |x| (one row: the 1x1, 1x7 workloads).
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
  if (a < 0.015625f) return sign | uint8_t(std::nearbyint(a * 512.0f));  // subnormal: m * 2^-9 (8 is 2^-6)
  const uint32_t r = (u + 0x7ffffu + ((u >> 20) & 1u)) >> 20;              // 3 mantissa bits, ties to even
  return sign | uint8_t(std::min<uint32_t>(r - (120u << 3), 0x7e));       // exponent bias 127 -> 7
}
}  // namespace

extern "C" void kwb_fp8_quant_bf16_per_token(const uint16_t* x, uint8_t* q, float* scale_token, int64_t tokens,
                                             int64_t hidden) {
  float amax = 0.0f;
  for (int64_t i = 0; i < tokens * hidden; ++i) amax = std::max(amax, std::fabs(widen(x[i])));
  const float a = std::max(amax, 1e-4f), inv = 448.0f / a;
  for (int64_t i = 0; i < tokens * hidden; ++i) q[i] = to_e4m3(widen(x[i]) * inv);
  for (int64_t t = 0; t < tokens; ++t) scale_token[t] = a / 448.0f;
}
