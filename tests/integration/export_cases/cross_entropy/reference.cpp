// Trusted reference for cross_entropy: per row, the log-sum-exp in double with the row max
// subtracted, then loss = (1 - s) * w[y] * -log p[y] + s / vocab * sum_c w[c] * -log p[c]
// (w = 1 where the variant has no weight tensor).
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void cross_entropy(const core::ReferenceArgs& a) {
  const int64_t rows = a.param("rows"), vocab = a.param("vocab");
  const double s = a.scalar("label_smoothing");
  const uint16_t* logits = a.in<uint16_t>("logits");
  const int32_t* labels = a.in<int32_t>("labels");
  const float* weight = a.has("weight") ? a.in<float>("weight") : nullptr;
  double* loss = a.out("loss");
  core::parallel_ranges(rows, rows * vocab, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint16_t* x = logits + r * vocab;
      double m = -INFINITY;
      for (int64_t c = 0; c < vocab; ++c) m = std::fmax(m, double(core::bf16_to_float(x[c])));
      double sum = 0;
      for (int64_t c = 0; c < vocab; ++c) sum += std::exp(double(core::bf16_to_float(x[c])) - m);
      const double lse = m + std::log(sum);
      const int32_t y = labels[r];
      if (y < 0 || y >= vocab) throw std::invalid_argument("label " + std::to_string(y) + " outside the vocabulary");
      auto w = [&](int64_t c) { return weight ? double(weight[c]) : 1.0; };
      double smooth = 0;
      if (s != 0)
        for (int64_t c = 0; c < vocab; ++c) smooth += w(c) * (lse - double(core::bf16_to_float(x[c])));
      loss[r] = (1 - s) * w(y) * (lse - double(core::bf16_to_float(x[y]))) + s / double(vocab) * smooth;
    }
  });
}

}  // namespace kwb::reference
