// histogram, CPU: four private sub-histograms, one per element of an unrolled group of four
// (and 16 bytes per iteration loaded as two 64-bit words), so consecutive equal bytes increment
// different counters and do not serialise on a store-to-load dependency; merged at the end.
#include <cstdint>
#include <cstring>

extern "C" void kwb_histogram_u8(const uint8_t* x, uint32_t* bins, int64_t n) {
  uint32_t h[4][256];
  std::memset(h, 0, sizeof h);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint64_t w0, w1;
    std::memcpy(&w0, x + i, 8);
    std::memcpy(&w1, x + i + 8, 8);
    for (int s = 0; s < 64; s += 32) {
      ++h[0][(w0 >> s) & 0xff];
      ++h[1][(w0 >> (s + 8)) & 0xff];
      ++h[2][(w0 >> (s + 16)) & 0xff];
      ++h[3][(w0 >> (s + 24)) & 0xff];
    }
    for (int s = 0; s < 64; s += 32) {
      ++h[0][(w1 >> s) & 0xff];
      ++h[1][(w1 >> (s + 8)) & 0xff];
      ++h[2][(w1 >> (s + 16)) & 0xff];
      ++h[3][(w1 >> (s + 24)) & 0xff];
    }
  }
  for (; i < n; ++i) ++h[i & 3][x[i]];
  for (int v = 0; v < 256; ++v) bins[v] = h[0][v] + h[1][v] + h[2][v] + h[3][v];
}
