// kwb-expect: op=vector_add status=incorrect reason="differs between two runs on the same inputs"
// Reads the output buffer before writing it, so the result depends on what was there before
// the call (within tolerance, but not reproducible): the two runs start from different poisons.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float bias = c[i] == c[i] ? 1e-7f * (a[i] + b[i]) : 0.0f;  // NaN poison: 0; finite: a tiny nudge
    c[i] = a[i] + b[i] + bias;
  }
}
