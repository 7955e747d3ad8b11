// gemm bf16, CPU: bf16 A and B (uint16_t bit patterns), f32 accumulation and output.
// Same Goto/BLIS-style cache blocking as the f32 kernel, single-threaded; bf16 -> f32 widening
// (exact: the bits shifted into the top half of an f32) happens once, while packing, so the
// micro-kernel is the f32 one and every product of two bf16 values is exact in f32.
//   for each NC-column block of B, for each KC-deep slice:  pack B into NR-wide panels
//     for each MC-row block of A:                            pack A into MR-tall panels
//       for each NR panel, for each MR panel:                MR x NR register-blocked micro-kernel
// The micro-kernel keeps an MR x NR = 6 x 32 tile of C in registers (12 AVX-512 or 24 AVX
// vectors' worth, fixed-size loops the compiler fully unrolls and vectorises; a*b+c contracts to
// FMA) and streams kc steps of one packed A column (MR broadcasts) and one packed B row (NR
// lanes). Packing zero-pads ragged edges so the micro-kernel never branches; edge tiles are
// written back through a bounds-checked copy. C is overwritten on the first KC slice and
// accumulated on the following ones.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

inline float widen(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

constexpr int64_t MR = 6;
constexpr int64_t NR = 32;
constexpr int64_t KC = 256;
constexpr int64_t MC = 96;    // multiple of MR
constexpr int64_t NC = 1024;  // multiple of NR

// Packed B slice (kc x nc) as NR-wide panels: panel j holds rows p = 0..kc-1, NR values each.
void pack_b(const uint16_t* b, int64_t ldb, int64_t kc, int64_t nc, float* __restrict out) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t w = std::min(NR, nc - j0);
    for (int64_t p = 0; p < kc; ++p) {
      const uint16_t* src = b + p * ldb + j0;
      float* dst = out + p * NR;
      for (int64_t j = 0; j < w; ++j) dst[j] = widen(src[j]);
      for (int64_t j = w; j < NR; ++j) dst[j] = 0.0f;
    }
    out += kc * NR;
  }
}

// Packed A block (mc x kc) as MR-tall panels: panel i holds columns p = 0..kc-1, MR values each.
void pack_a(const uint16_t* a, int64_t lda, int64_t mc, int64_t kc, float* __restrict out) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const int64_t h = std::min(MR, mc - i0);
    for (int64_t p = 0; p < kc; ++p) {
      float* dst = out + p * MR;
      for (int64_t i = 0; i < h; ++i) dst[i] = widen(a[(i0 + i) * lda + p]);
      for (int64_t i = h; i < MR; ++i) dst[i] = 0.0f;
    }
    out += kc * MR;
  }
}

// acc = Ap(MR x kc) * Bp(kc x NR); then C[0:mr, 0:nr] (+)= acc.
void micro_kernel(int64_t kc, const float* __restrict ap, const float* __restrict bp, float* c, int64_t ldc,
                  int64_t mr, int64_t nr, bool accumulate) {
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const float* bq = bp + p * NR;
    const float* aq = ap + p * MR;
    for (int64_t i = 0; i < MR; ++i) {
      const float ai = aq[i];
      for (int64_t j = 0; j < NR; ++j) acc[i][j] += ai * bq[j];
    }
  }
  if (mr == MR && nr == NR) {
    for (int64_t i = 0; i < MR; ++i) {
      float* ci = c + i * ldc;
      if (accumulate)
        for (int64_t j = 0; j < NR; ++j) ci[j] += acc[i][j];
      else
        for (int64_t j = 0; j < NR; ++j) ci[j] = acc[i][j];
    }
  } else {
    for (int64_t i = 0; i < mr; ++i) {
      float* ci = c + i * ldc;
      for (int64_t j = 0; j < nr; ++j) ci[j] = accumulate ? ci[j] + acc[i][j] : acc[i][j];
    }
  }
}

}  // namespace

extern "C" void kwb_gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, int64_t m, int64_t n, int64_t k) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
    return;
  }
  const int64_t nc_max = std::min(NC, (n + NR - 1) / NR * NR);
  const int64_t kc_max = std::min(KC, k);
  const int64_t mc_max = std::min(MC, (m + MR - 1) / MR * MR);
  std::vector<float> bpack(size_t(kc_max * nc_max));
  std::vector<float> apack(size_t(kc_max * mc_max));
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      pack_b(b + pc * n + jc, n, kc, nc, bpack.data());
      for (int64_t ic = 0; ic < m; ic += MC) {
        const int64_t mc = std::min(MC, m - ic);
        pack_a(a + ic * k + pc, k, mc, kc, apack.data());
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const float* bp = bpack.data() + (jr / NR) * kc * NR;
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const float* ap = apack.data() + (ir / MR) * kc * MR;
            micro_kernel(kc, ap, bp, c + (ic + ir) * n + jc + jr, n, std::min(MR, mc - ir), std::min(NR, nc - jr),
                         pc > 0);
          }
        }
      }
    }
  }
}
