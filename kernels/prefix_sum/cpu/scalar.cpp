// prefix_sum, CPU: one sequential pass with a register-resident running total in uint32
// arithmetic (modulo 2^32: wrap-around is defined, unlike signed overflow), converted back to
// int32. One dependent add per element, which already outruns the memory stream.
#include <cstdint>

extern "C" void kwb_prefix_sum_i32(const int32_t* x, int32_t* y, int64_t n) {
  const int32_t* __restrict px = x;
  int32_t* __restrict py = y;
  uint32_t s = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t s0 = s + uint32_t(px[i]);
    const uint32_t s1 = s0 + uint32_t(px[i + 1]);
    const uint32_t s2 = s1 + uint32_t(px[i + 2]);
    const uint32_t s3 = s2 + uint32_t(px[i + 3]);
    py[i] = int32_t(s0);
    py[i + 1] = int32_t(s1);
    py[i + 2] = int32_t(s2);
    py[i + 3] = int32_t(s3);
    s = s3;
  }
  for (; i < n; ++i) {
    s += uint32_t(px[i]);
    py[i] = int32_t(s);
  }
}
