// Trusted reference for fp8_quant: per group (a row, or a 128-column block of a row), the largest
// |x| floored at 1e-4, scale = a / 448 and q = e4m3(x * (448 / a)), each step one f32 operation
// as spec.json defines the op; q written as the decoded e4m3 value it expects.
#include <algorithm>
#include <cmath>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void fp8_quant(const core::ReferenceArgs& a) {
  const int64_t tokens = a.param("tokens"), hidden = a.param("hidden");
  const bool per_block = a.has("scale_block");
  const int64_t group = per_block ? 128 : hidden, groups = (hidden + group - 1) / group;
  const uint16_t* x = a.in<uint16_t>("x");
  double* q = a.out("q");
  double* scale = a.out(per_block ? "scale_block" : "scale_token");
  core::parallel_ranges(tokens, tokens * hidden, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t c0 = t * hidden + g * group, c1 = t * hidden + std::min(hidden, (g + 1) * group);
        float amax = 0.0f;
        for (int64_t i = c0; i < c1; ++i) amax = std::max(amax, std::fabs(core::bf16_to_float(x[i])));
        const float floored = std::max(amax, 1e-4f);
        const float inv = 448.0f / floored;
        scale[t * groups + g] = double(floored / 448.0f);
        for (int64_t i = c0; i < c1; ++i) {
          const float v = core::bf16_to_float(x[i]) * inv;
          q[i] = double(core::f8e4m3_to_float(core::double_to_f8e4m3(double(v))));
        }
      }
  });
}

}  // namespace kwb::reference
