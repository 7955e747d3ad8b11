// kwb-expect: op=vector_add status=time_limit reason="did not finish within" args="--run-timeout-ms 1500"
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  volatile int64_t i = 0;
  while (i >= 0) i = i + 1 - 1;
  for (int64_t j = 0; j < n; ++j) c[j] = a[j] + b[j];
}
