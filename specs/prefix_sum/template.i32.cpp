// prefix_sum i32, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/prefix_sum).
// Inclusive scan; the sum wraps modulo 2^32 (computed in uint32_t, where overflow is defined).
#include <cstdint>

extern "C" void kwb_prefix_sum_i32(const int32_t* x, int32_t* y, int64_t n) {
  uint32_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += uint32_t(x[i]);
    y[i] = int32_t(s);
  }
}
