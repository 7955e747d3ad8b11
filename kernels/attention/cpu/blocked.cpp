// attention bf16, CPU: causal grouped-query attention, blocked flash-attention style,
// single-threaded, f32 throughout (o rounded to bf16 once).
//   for each (batch, kv head):    widen K (transposed, head_dim x seq) and V (seq x head_dim) to f32
//     for each q head it serves:  (grouped-query attention: q head h reads kv head h / group)
//       for each block of QB queries:   widen the rows of q, scaled by scale * log2(e)
//         for each block of KB keys up to the block's last query (causal block skipping):
//           S = Q K^T as QB x KB outer-product updates (contiguous over keys: vectorised FMAs)
//           online softmax per row in base 2: running max, row sum and O rescaled when the
//           max grows; P = 2^(S - max) by a vectorisable exp2 (Cody-Waite + polynomial, ~2 ulp);
//           keys past the query (the diagonal block) get P = 0
//           O += P V as row updates (contiguous over head_dim: vectorised FMAs)
//       o = O / rowsum, rounded to bf16 (nearest even)
// Each widening is exact (bf16 is the top half of an f32); every loop the compiler must
// vectorise has a fixed trip count or a contiguous unit-stride body without reductions, so it
// does so without -ffast-math.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr int64_t QB = 16;  // queries per block
constexpr int64_t KB = 64;  // keys per block

inline float widen(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint16_t narrow(float f) {  // round to nearest even; NaN stays NaN
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// 2^x for x <= 0 (scores minus the running max), branch-free so that loops over it vectorise;
// below -126 it returns 0 (the weight of such a key is below f32's normal range anyway).
inline float exp2_nonpos(float x) {
  x = std::max(x, -127.0f);
  const float n = (x + 12582912.0f) - 12582912.0f;  // round to nearest (1.5 * 2^23)
  const float r = x - n;                            // in [-0.5, 0.5]
  float p = 1.5403530e-4f;                          // 2^r, minimax degree 6
  p = p * r + 1.3333558e-3f;
  p = p * r + 9.6181291e-3f;
  p = p * r + 5.5504109e-2f;
  p = p * r + 2.4022651e-1f;
  p = p * r + 6.9314718e-1f;
  p = p * r + 1.0f;
  const int32_t e = int32_t(n) + 127;  // >= 0: n >= -127
  uint32_t bits = uint32_t(e) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return e > 0 ? p * scale : 0.0f;
}

struct Scratch {
  std::vector<float> kt, vf, qf, o, s;
  float m[QB], l[QB];
};

// One block of queries [i0, i0 + nq) of q head h against kv head (Kt, V) widened in scratch.
void query_block(const uint16_t* q, uint16_t* o, Scratch& w, int64_t seq, int64_t q_heads, int64_t d,
                 int64_t b, int64_t h, int64_t i0, int64_t nq, float qscale) {
  float* __restrict qf = w.qf.data();
  float* __restrict acc = w.o.data();
  float* __restrict s = w.s.data();
  const float* __restrict kt = w.kt.data();
  const float* __restrict vf = w.vf.data();
  for (int64_t r = 0; r < nq; ++r) {
    const uint16_t* qr = q + ((b * seq + i0 + r) * q_heads + h) * d;
    for (int64_t c = 0; c < d; ++c) qf[r * d + c] = widen(qr[c]) * qscale;
    w.m[r] = -INFINITY;
    w.l[r] = 0.0f;
  }
  std::fill(acc, acc + nq * d, 0.0f);
  const int64_t last = i0 + nq - 1;  // keys 0..last are seen by some query of the block
  for (int64_t j0 = 0; j0 <= last; j0 += KB) {
    const int64_t nk = std::min(KB, last + 1 - j0);
    for (int64_t r = 0; r < nq; ++r) {
      float* __restrict sr = s + r * KB;
      for (int64_t j = 0; j < KB; ++j) sr[j] = 0.0f;
      for (int64_t c = 0; c < d; ++c) {
        const float qv = qf[r * d + c];
        const float* __restrict kc = kt + c * seq + j0;
        for (int64_t j = 0; j < nk; ++j) sr[j] += qv * kc[j];
      }
      const int64_t valid = std::min(nk, i0 + r + 1 - j0);  // causal: keys j0 .. i0 + r
      if (valid <= 0) continue;
      float bm = -INFINITY;
      for (int64_t j = 0; j < valid; ++j) bm = std::max(bm, sr[j]);
      const float m_new = std::max(w.m[r], bm);
      const float alpha = exp2_nonpos(w.m[r] - m_new);  // 0 on the first block: acc and l are 0
      w.m[r] = m_new;
      float* __restrict ar = acc + r * d;
      if (alpha != 1.0f)
        for (int64_t c = 0; c < d; ++c) ar[c] *= alpha;
      float sum[8] = {};
      for (int64_t j = 0; j < KB; ++j) {
        const float p = j < valid ? exp2_nonpos(sr[j] - m_new) : 0.0f;
        sr[j] = p;
        sum[j % 8] += p;
      }
      w.l[r] = w.l[r] * alpha + (((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7])));
      for (int64_t j = 0; j < valid; ++j) {
        const float p = sr[j];
        const float* __restrict vr = vf + (j0 + j) * d;
        for (int64_t c = 0; c < d; ++c) ar[c] += p * vr[c];
      }
    }
  }
  for (int64_t r = 0; r < nq; ++r) {
    uint16_t* orow = o + ((b * seq + i0 + r) * q_heads + h) * d;
    const float inv = 1.0f / w.l[r];
    for (int64_t c = 0; c < d; ++c) orow[c] = narrow(acc[r * d + c] * inv);
  }
}

}  // namespace

extern "C" void kwb_attention_bf16(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                                   int64_t batch, int64_t seq, int64_t q_heads, int64_t kv_heads, int64_t head_dim,
                                   double scale) {
  const int64_t d = head_dim, group = q_heads / kv_heads;
  const double sc = scale == 0 ? 1.0 / std::sqrt(double(d)) : scale;
  const float qscale = float(sc * 1.4426950408889634);  // log2(e): softmax in base 2
  Scratch w;
  w.kt.resize(size_t(d * seq));
  w.vf.resize(size_t(seq * d));
  w.qf.resize(size_t(QB * d));
  w.o.resize(size_t(QB * d));
  w.s.resize(size_t(QB * KB));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t g = 0; g < kv_heads; ++g) {
      for (int64_t j = 0; j < seq; ++j) {
        const uint16_t* kr = k + ((b * seq + j) * kv_heads + g) * d;
        const uint16_t* vr = v + ((b * seq + j) * kv_heads + g) * d;
        for (int64_t c = 0; c < d; ++c) {
          w.kt[size_t(c * seq + j)] = widen(kr[c]);
          w.vf[size_t(j * d + c)] = widen(vr[c]);
        }
      }
      for (int64_t h = g * group; h < (g + 1) * group; ++h)
        for (int64_t i0 = 0; i0 < seq; i0 += QB) query_block(q, o, w, seq, q_heads, d, b, h, i0, std::min(QB, seq - i0), qscale);
    }
}
