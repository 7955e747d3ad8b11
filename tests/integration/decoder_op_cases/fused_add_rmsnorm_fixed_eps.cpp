// A wrong fused_add_rmsnorm kernel (tests/integration/test_decoder_ops.cpp): right but for eps,
// which it takes as 1e-6 whatever the scalar says (a kernel that does not read its double). The
// workloads at eps 1e-5 under the `tiny` distribution (mean square ~2e-6) catch it.
#include <cmath>
#include <cstdint>
#include <cstring>

static float widen(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static uint16_t narrow(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

extern "C" void kwb_fused_add_rmsnorm_bf16(const uint16_t* x, const uint16_t* residual, const uint16_t* weight,
                                           uint16_t* y, uint16_t* residual_out, int64_t tokens, int64_t hidden,
                                           double /*eps*/) {
  for (int64_t t = 0; t < tokens; ++t) {
    float ss = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const uint16_t s = narrow(widen(x[t * hidden + c]) + widen(residual[t * hidden + c]));
      residual_out[t * hidden + c] = s;
      ss += widen(s) * widen(s);
    }
    const float rstd = 1.0f / std::sqrt(ss / float(hidden) + 1e-6f);
    for (int64_t c = 0; c < hidden; ++c)
      y[t * hidden + c] = narrow(widen(residual_out[t * hidden + c]) * rstd * widen(weight[c]));
  }
}
