// A wrong attention kernel (tests/integration/test_attention_op.cpp): q head h reads kv head
// h % kv_heads (interleaved groups) instead of h / (q_heads / kv_heads) (consecutive groups).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

float widen(uint16_t bits) {  // bf16 is the top half of an f32
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t narrow(float f) {  // round to nearest even (NaN stays NaN)
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

constexpr int64_t kBlock = 64;

}  // namespace

extern "C" void kwb_attention_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                                   int64_t batch, int64_t seq, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                                   double scale) {
    const float sc = scale == 0 ? 1.0f / std::sqrt(float(head_dim)) : float(scale);
  std::vector<float> acc(static_cast<size_t>(head_dim));
  float s[kBlock];
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t h = 0; h < q_heads; ++h) {
        const uint16_t* qr = q + ((b * seq + i) * q_heads + h) * head_dim;
        const int64_t g = h % kv_heads;  // wrong: the groups are consecutive q heads
        float m = -INFINITY, l = 0.0f;
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t j0 = 0; j0 <= i; j0 += kBlock) {
          const int64_t n = std::min(kBlock, i + 1 - j0);
          float bm = -INFINITY;
          for (int64_t j = 0; j < n; ++j) {
            const uint16_t* kr = k + ((b * seq + j0 + j) * kv_heads + g) * head_dim;
            float dot = 0.0f;
            for (int64_t c = 0; c < head_dim; ++c) dot += widen(qr[c]) * widen(kr[c]);
            s[j] = dot * sc;
            bm = std::max(bm, s[j]);
          }
          const float m_new = std::max(m, bm);
          const float alpha = std::exp(m - m_new);  // 0 on the first block (m = -inf)
          l *= alpha;
          for (auto& a : acc) a *= alpha;
          for (int64_t j = 0; j < n; ++j) {
            const float p = std::exp(s[j] - m_new);
            l += p;
            const float pb = widen(narrow(p));
            const uint16_t* vr = v + ((b * seq + j0 + j) * kv_heads + g) * head_dim;
            for (int64_t c = 0; c < head_dim; ++c) acc[size_t(c)] += pb * widen(vr[c]);
          }
          m = m_new;
        }
        uint16_t* orow = o + ((b * seq + i) * q_heads + h) * head_dim;
        for (int64_t c = 0; c < head_dim; ++c) orow[c] = narrow(acc[size_t(c)] / l);
      }
}
