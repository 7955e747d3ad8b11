// Trusted reference for fused_add_rmsnorm, in double: per token, residual_out = bf16(x + residual)
// (the sum of two bf16 values is exact in double; rounded to odd in f32, then to nearest even in
// bf16: the correctly rounded bf16 sum); then y = residual_out / sqrt(mean(residual_out^2) + eps) *
// weight, of the rounded residual_out as stored.
#include <cmath>

#include "core/dtype.hpp"
#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void fused_add_rmsnorm(const core::ReferenceArgs& a) {
  const int64_t tokens = a.param("tokens"), hidden = a.param("hidden");
  const double eps = a.scalar("eps");
  const uint16_t* x = a.in<uint16_t>("x");
  const uint16_t* residual = a.in<uint16_t>("residual");
  const uint16_t* weight = a.in<uint16_t>("weight");
  double* residual_out = a.out("residual_out");
  double* y = a.out("y");
  core::parallel_ranges(tokens, tokens * hidden, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t row = t * hidden;
      double ss = 0;
      for (int64_t c = 0; c < hidden; ++c) {
        const double sum = double(core::bf16_to_float(x[row + c])) + double(core::bf16_to_float(residual[row + c]));
        const double stored = core::bf16_to_float(core::float_to_bf16(core::to_float_round_odd(sum)));
        residual_out[row + c] = stored;
        ss += stored * stored;
      }
      const double rms = std::sqrt(ss / double(hidden) + eps);
      for (int64_t c = 0; c < hidden; ++c)
        y[row + c] = residual_out[row + c] / rms * double(core::bf16_to_float(weight[c]));
    }
  });
}

}  // namespace kwb::reference
