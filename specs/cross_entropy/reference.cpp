// Trusted reference for cross_entropy: per row, the log-sum-exp in double with the row max
// subtracted, then loss = (1 - s) * -log p[y] + s / vocab * sum_c -log p[c].
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
  double* loss = a.out("loss");
  core::parallel_ranges(rows, rows * vocab, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint16_t* x = logits + r * vocab;
      auto value = [&](int64_t c) { return double(core::bf16_to_float(x[c])); };
      double m = -INFINITY;
      for (int64_t c = 0; c < vocab; ++c) m = std::fmax(m, value(c));
      double sum = 0;
      for (int64_t c = 0; c < vocab; ++c) sum += std::exp(value(c) - m);
      const double lse = m + std::log(sum);
      const int32_t y = labels[r];
      if (y < 0 || y >= vocab) throw std::invalid_argument("label " + std::to_string(y) + " outside the vocabulary");
      double smooth = 0;
      if (s != 0)
        for (int64_t c = 0; c < vocab; ++c) smooth += lse - value(c);
      loss[r] = (1 - s) * (lse - value(y)) + s / double(vocab) * smooth;
    }
  });
}

}  // namespace kwb::reference
