// vector_add f32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/vector_add).
#include <cstdint>

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
