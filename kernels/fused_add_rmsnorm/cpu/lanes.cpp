// fused_add_rmsnorm bf16, CPU: per token, pass 1 adds x and the residual (f32 sum of two bf16
// values, exact, rounded to nearest even with integer ops a compiler vectorises), writes
// residual_out and sums the squares of the stored values in 32 independent f32 lanes (a fixed-size inner loop mapped
// onto SIMD registers without -ffast-math); pass 2 reads the row it just wrote (in L1/L2) and
// writes y = bf16(residual_out * rstd * weight). Global memory is read and written once. Each
// residual element is read before residual_out is written at its index: residual_out may alias
// residual (an in-place update).
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr int kLanes = 32;

inline float widen(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t narrow(float f) {  // nearest even; a NaN stays a quiet NaN
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return uint16_t(nan ? ((u >> 16) | 0x40u) : rounded);
}

float add_and_sum_squares(const uint16_t* x, const uint16_t* r, uint16_t* out, int64_t n) {
  float acc[kLanes] = {};
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const uint16_t s = narrow(widen(x[c + l]) + widen(r[c + l]));
      out[c + l] = s;
      const float v = widen(s);
      acc[l] += v * v;
    }
  for (int l = 0; c + l < n; ++l) {
    const uint16_t s = narrow(widen(x[c + l]) + widen(r[c + l]));
    out[c + l] = s;
    const float v = widen(s);
    acc[l] += v * v;
  }
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  return acc[0];
}

}  // namespace

extern "C" void kwb_fused_add_rmsnorm_bf16(const uint16_t* x, const uint16_t* residual, const uint16_t* weight,
                                           uint16_t* y, uint16_t* residual_out, int64_t tokens, int64_t hidden,
                                           double eps) {
  const uint16_t* __restrict w = weight;
  for (int64_t t = 0; t < tokens; ++t) {
    const uint16_t* rr = residual_out + t * hidden;
    uint16_t* __restrict yr = y + t * hidden;
    const float ss = add_and_sum_squares(x + t * hidden, residual + t * hidden, residual_out + t * hidden, hidden);
    const float rstd = 1.0f / std::sqrt(ss / float(hidden) + float(eps));
    for (int64_t c = 0; c < hidden; ++c) yr[c] = narrow(widen(rr[c]) * rstd * widen(w[c]));
  }
}
