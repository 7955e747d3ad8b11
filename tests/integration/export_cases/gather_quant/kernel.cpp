// A CPU kernel of the export's test op gather_quant (spec.json), with its own e4m3 encoding
// (round to nearest even, saturating to 448, as core/dtype.hpp's double_to_f8e4m3).
#include <cmath>
#include <cstdint>

namespace {

uint8_t to_e4m3(double v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const double a = std::fabs(v);
  if (std::isnan(v)) return uint8_t(sign | 0x7f);
  if (a == 0) return sign;
  int e2 = 0;
  std::frexp(a, &e2);
  const int e = e2 - 1 < -6 ? -6 : e2 - 1;        // the exponent of a's binade (subnormals: -6)
  const double quantum = std::ldexp(1.0, e - 3);  // 3 mantissa bits
  const double r = std::nearbyint(a / quantum) * quantum;
  if (r >= 448) return uint8_t(sign | 0x7e);
  if (r < std::ldexp(1.0, -6)) return uint8_t(sign | uint8_t(r / std::ldexp(1.0, -9)));
  int rk = 0;
  const double f = std::frexp(r, &rk);
  return uint8_t(sign | ((rk - 1 + 7) << 3) | int((f * 2 - 1) * 8));
}

}  // namespace

extern "C" void kwb_gather_quant_f32(const float* x, const int32_t* order, const int8_t* ids, const int64_t* seg,
                                     uint8_t* q, float* scale, float* picked, int32_t* seg_len, int64_t rows,
                                     int64_t cols, int64_t k, int64_t batch) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + int64_t(order[r]) * cols;
    float amax = 0;
    for (int64_t c = 0; c < cols; ++c) amax = std::fmax(amax, std::fabs(row[c]));
    const float s = amax > 0 ? amax / 448.0f : 1.0f;
    scale[r] = s;
    for (int64_t c = 0; c < cols; ++c) q[r * cols + c] = to_e4m3(double(row[c]) / double(s));
    for (int64_t j = 0; j < k; ++j) picked[r * k + j] = row[ids[r * k + j]];
  }
  for (int64_t b = 0; b < batch; ++b) seg_len[b] = int32_t(seg[b + 1] - seg[b]);
}
