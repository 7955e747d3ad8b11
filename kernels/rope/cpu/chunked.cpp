// rope bf16, CPU (rotate-half convention). The rotation frequencies theta^(-i / half_dim) are
// computed once per call (powf) for a chunk of up to 256 pairs, each token's cosines and sines
// once per chunk (cosf, sinf of the f32 angle position * inv_freq) and applied to every head of q
// and k. The rotation runs through single-type loops (bf16 bits widened, f32 arithmetic, bits
// rounded to bf16 nearest even) so that the compiler vectorises each without -ffast-math.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr int64_t kChunk = 256;

struct Rotation {
  const float* c;
  const float* s;
  int64_t first, count, half;
};

// Pairs [first, first + count) of one head: x[i] with x[i + half].
void rotate_head(const uint16_t* __restrict x, uint16_t* __restrict out, const Rotation& r) {
  uint32_t lo_bits[kChunk], hi_bits[kChunk];
  float a[kChunk], b[kChunk], lo[kChunk], hi[kChunk];
  const int64_t m = r.count;
  const uint16_t* xl = x + r.first;
  const uint16_t* xh = x + r.first + r.half;
  for (int64_t j = 0; j < m; ++j) lo_bits[j] = uint32_t(xl[j]) << 16;
  for (int64_t j = 0; j < m; ++j) hi_bits[j] = uint32_t(xh[j]) << 16;
  std::memcpy(a, lo_bits, size_t(m) * 4);
  std::memcpy(b, hi_bits, size_t(m) * 4);
  for (int64_t j = 0; j < m; ++j) {
    lo[j] = a[j] * r.c[j] - b[j] * r.s[j];
    hi[j] = b[j] * r.c[j] + a[j] * r.s[j];
  }
  std::memcpy(lo_bits, lo, size_t(m) * 4);
  std::memcpy(hi_bits, hi, size_t(m) * 4);
  uint16_t* ol = out + r.first;
  uint16_t* oh = out + r.first + r.half;
  for (int64_t j = 0; j < m; ++j) {  // nearest even; a NaN stays a quiet NaN
    const uint32_t v = lo_bits[j];
    ol[j] = uint16_t((v & 0x7fffffffu) > 0x7f800000u ? ((v >> 16) | 0x40u) : (v + 0x7fffu + ((v >> 16) & 1u)) >> 16);
  }
  for (int64_t j = 0; j < m; ++j) {
    const uint32_t v = hi_bits[j];
    oh[j] = uint16_t((v & 0x7fffffffu) > 0x7f800000u ? ((v >> 16) | 0x40u) : (v + 0x7fffu + ((v >> 16) & 1u)) >> 16);
  }
}

}  // namespace

extern "C" void kwb_rope_bf16(const uint16_t* q, const uint16_t* k, const int32_t* positions, uint16_t* q_out,
                              uint16_t* k_out, int64_t tokens, int64_t heads, int64_t kv_heads, int64_t half_dim,
                              double theta) {
  const int64_t head = 2 * half_dim;
  float inv_freq[kChunk], c[kChunk], s[kChunk];
  for (int64_t i0 = 0; i0 < half_dim; i0 += kChunk) {
    const int64_t m = std::min(kChunk, half_dim - i0);
    for (int64_t j = 0; j < m; ++j) inv_freq[j] = std::pow(float(theta), -float(i0 + j) / float(half_dim));
    const Rotation r{c, s, i0, m, half_dim};
    for (int64_t t = 0; t < tokens; ++t) {
      const float pos = float(positions[t]);
      for (int64_t j = 0; j < m; ++j) {
        const float angle = pos * inv_freq[j];
        c[j] = std::cos(angle);
        s[j] = std::sin(angle);
      }
      for (int64_t h = 0; h < heads; ++h) rotate_head(q + (t * heads + h) * head, q_out + (t * heads + h) * head, r);
      for (int64_t h = 0; h < kv_heads; ++h)
        rotate_head(k + (t * kv_heads + h) * head, k_out + (t * kv_heads + h) * head, r);
    }
  }
}
