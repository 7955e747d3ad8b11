// cross_entropy bf16_weighted, cpu: the simplest correct kernel (a template to start from). Per row, in
// f32 with 8 interleaved accumulators for the sums (what a vectorised loop does): the row max,
// the sum of exp(x - max) and the log-sum-exp, then the smoothed loss with class weights.
// A same-precision kernel: `kwb spec check` runs it to measure the tolerance's headroom
// (docs/specs.md "Checking a spec", check 11).
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

float total(const float (&acc)[8]) { return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])); }

}  // namespace

extern "C" void kwb_cross_entropy_bf16_weighted(const uint16_t* logits, const int32_t* labels, const float* weight,
                                                float* loss, int64_t rows, int64_t vocab, double label_smoothing) {
  const float s = float(label_smoothing);
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* x = logits + r * vocab;
    float m = -INFINITY;
    for (int64_t c = 0; c < vocab; ++c) m = std::fmax(m, widen(x[c]));
    float acc[8] = {};
    for (int64_t c = 0; c < vocab; ++c) acc[c % 8] += std::exp(widen(x[c]) - m);
    const float lse = m + std::log(total(acc));
    const int32_t y = labels[r];
    float parts[8] = {};
    if (s != 0.0f)
      for (int64_t c = 0; c < vocab; ++c) parts[c % 8] += weight[c] * (lse - widen(x[c]));
    loss[r] = (1.0f - s) * weight[y] * (lse - widen(x[y])) + s / float(vocab) * total(parts);
  }
}
