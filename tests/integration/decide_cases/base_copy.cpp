// decide-noise case: the same kernel as base.cpp, another sha256
#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  // A dependent chain (an LCG: a multiply and an add per step): a fixed cost per element that no
  // compiler can vectorise or fold.
  const double per_element = n < (int64_t(4) << 20) ? 2.0 : 2.0;
  const int64_t steps = int64_t(per_element * double(n));
  uint64_t x = uint64_t(n);
  for (int64_t i = 0; i < steps; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  volatile uint64_t sink = x;
  (void)sink;
}
