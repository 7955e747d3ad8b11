// histogram u8, cpu: the simplest correct kernel (a template to start from: GET /v1/specs/histogram).
// The bins are an output: zero them first.
#include <cstdint>

extern "C" void kwb_histogram_u8(const uint8_t* x, uint32_t* bins, int64_t n) {
  for (int b = 0; b < 256; ++b) bins[b] = 0;
  for (int64_t i = 0; i < n; ++i) ++bins[x[i]];
}
