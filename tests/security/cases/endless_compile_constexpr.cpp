// kwb-expect: op=vector_add status=time_limit reason="compilation exceeded the 2000 ms limit" args="--compile-timeout-ms 2000"
// Constant evaluation that takes hours: nested loops inside the compiler's step limits.
#include <cstdint>
constexpr int64_t spin() {
  int64_t s = 0;
  for (int64_t i = 0; i < 200000; ++i)
    for (int64_t j = 0; j < 200000; ++j) s += i ^ j;
  return s;
}
constexpr int64_t k_spun = spin();
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
