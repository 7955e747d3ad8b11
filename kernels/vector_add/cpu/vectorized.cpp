// vector_add, CPU: one streaming loop over restrict-qualified pointers that the compiler turns
// into full-width SIMD adds (plus a scalar tail).
#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  const float* __restrict pa = a;
  const float* __restrict pb = b;
  float* __restrict pc = c;
  for (int64_t i = 0; i < n; ++i) pc[i] = pa[i] + pb[i];
}
