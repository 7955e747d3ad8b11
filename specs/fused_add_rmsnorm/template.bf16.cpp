// fused_add_rmsnorm bf16, cpu: the simplest correct kernel (a template to start from:
// GET /v1/specs/fused_add_rmsnorm). Per token, in f32: residual_out = bf16(x + residual)
// (the f32 sum of two bf16 values is exact; rounded to nearest even), the sum of squares of the
// stored residual_out in 8 interleaved f32 accumulators (what a vectorised loop does), then
// y = bf16(residual_out * rstd * weight), one rounding. A same-precision kernel: `kwb spec check` runs
// it to measure the tolerance's headroom (docs/specs.md "Checking a spec", check 11).
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

uint16_t narrow(float f) {  // round to nearest even; NaN stays a quiet NaN
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace

extern "C" void kwb_fused_add_rmsnorm_bf16(const uint16_t* x, const uint16_t* residual, const uint16_t* weight, uint16_t* y,
                                           uint16_t* residual_out, int64_t tokens, int64_t hidden, double eps) {
  for (int64_t t = 0; t < tokens; ++t) {
    const uint16_t* xr = x + t * hidden;
    const uint16_t* rin = residual + t * hidden;
    uint16_t* rr = residual_out + t * hidden;
    uint16_t* yr = y + t * hidden;
    float acc[8] = {};
    for (int64_t c = 0; c < hidden; ++c) {
      rr[c] = narrow(widen(xr[c]) + widen(rin[c]));
      const float v = widen(rr[c]);
      acc[c % 8] += v * v;
    }
    const float ss = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    const float rstd = 1.0f / std::sqrt(ss / float(hidden) + float(eps));
    for (int64_t c = 0; c < hidden; ++c) yr[c] = narrow(widen(rr[c]) * rstd * widen(weight[c]));
  }
}
