// Trusted reference for attention (specs/attention/spec.json): causal grouped-query attention in
// double. Per (batch, query i, q head h) row, with g = h / (q_heads / kv_heads) its kv head:
// scores s_j = scale * q[b, i, h] . k[b, j, g] for j <= i, then the exact softmax (the row max
// first, then the sum of exp(s_j - max)), then o = sum_j p_j v[b, j, g] / sum_j p_j.
// scale 0 means 1 / sqrt(head_dim).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/dtype.hpp"
#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void attention(const core::ReferenceArgs& a) {
  const int64_t batch = a.param("batch"), seq = a.param("seq"), q_heads = a.param("q_heads");
  const int64_t kv_heads = a.param("kv_heads"), dim = a.param("head_dim");
  if (q_heads % kv_heads != 0) throw std::invalid_argument("attention: q_heads must be a multiple of kv_heads");
  const int64_t group = q_heads / kv_heads;
  const double scale = a.scalar("scale") == 0 ? 1.0 / std::sqrt(double(dim)) : a.scalar("scale");
  const uint16_t* q = a.in<uint16_t>("q");
  const uint16_t* k = a.in<uint16_t>("k");
  const uint16_t* v = a.in<uint16_t>("v");
  double* o = a.out("o");
  auto at = [&](const uint16_t* t, int64_t heads, int64_t b, int64_t i, int64_t h) {
    return t + ((b * seq + i) * heads + h) * dim;  // [batch, seq, heads, head_dim]
  };
  const int64_t rows = batch * seq * q_heads;
  core::parallel_ranges(rows, rows * seq * dim, [&](int64_t r0, int64_t r1) {
    std::vector<double> s(static_cast<size_t>(seq)), acc(static_cast<size_t>(dim));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t h = r % q_heads, i = (r / q_heads) % seq, b = r / (q_heads * seq), g = h / group;
      const uint16_t* qr = at(q, q_heads, b, i, h);
      double mx = -INFINITY;
      for (int64_t j = 0; j <= i; ++j) {
        const uint16_t* kr = at(k, kv_heads, b, j, g);
        double dot = 0;
        for (int64_t c = 0; c < dim; ++c) dot += double(core::bf16_to_float(qr[c])) * double(core::bf16_to_float(kr[c]));
        s[size_t(j)] = scale * dot;
        mx = std::max(mx, s[size_t(j)]);
      }
      double sum = 0;
      for (int64_t c = 0; c < dim; ++c) acc[size_t(c)] = 0;
      for (int64_t j = 0; j <= i; ++j) {
        const double p = std::exp(s[size_t(j)] - mx);
        sum += p;
        const uint16_t* vr = at(v, kv_heads, b, j, g);
        for (int64_t c = 0; c < dim; ++c) acc[size_t(c)] += p * double(core::bf16_to_float(vr[c]));
      }
      double* orow = o + ((b * seq + i) * q_heads + h) * dim;
      for (int64_t c = 0; c < dim; ++c) orow[c] = acc[size_t(c)] / sum;
    }
  });
}

}  // namespace kwb::reference
