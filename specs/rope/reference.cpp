// Trusted reference for rope (rotate-half convention), in double: per token and pair i the angle
// positions[t] * theta^(-i / half_dim), its cosine and sine computed once and applied to every
// head of q and of k: out[i] = x[i] cos - x[i + half] sin, out[i + half] = x[i + half] cos + x[i] sin.
#include <cmath>
#include <vector>

#include "core/dtype.hpp"
#include "core/parallel_ranges.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

namespace {

void rotate(const uint16_t* x, double* out, int64_t heads, int64_t half, const double* c, const double* s) {
  for (int64_t h = 0; h < heads; ++h) {
    const uint16_t* xh = x + h * 2 * half;
    double* oh = out + h * 2 * half;
    for (int64_t i = 0; i < half; ++i) {
      const double a = core::bf16_to_float(xh[i]), b = core::bf16_to_float(xh[i + half]);
      oh[i] = a * c[i] - b * s[i];
      oh[i + half] = b * c[i] + a * s[i];
    }
  }
}

}  // namespace

void rope(const core::ReferenceArgs& a) {
  const int64_t tokens = a.param("tokens"), heads = a.param("heads"), kv_heads = a.param("kv_heads");
  const int64_t half = a.param("half_dim");
  const double theta = a.scalar("theta");
  const uint16_t* q = a.in<uint16_t>("q");
  const uint16_t* k = a.in<uint16_t>("k");
  const int32_t* positions = a.in<int32_t>("positions");
  double* q_out = a.out("q_out");
  double* k_out = a.out("k_out");
  core::parallel_ranges(tokens, tokens * (heads + kv_heads) * half, [&](int64_t t0, int64_t t1) {
    std::vector<double> c(static_cast<size_t>(half)), s(static_cast<size_t>(half));
    for (int64_t t = t0; t < t1; ++t) {
      for (int64_t i = 0; i < half; ++i) {
        const double angle = double(positions[t]) * std::pow(theta, -double(i) / double(half));
        c[size_t(i)] = std::cos(angle);
        s[size_t(i)] = std::sin(angle);
      }
      rotate(q + t * heads * 2 * half, q_out + t * heads * 2 * half, heads, half, c.data(), s.data());
      rotate(k + t * kv_heads * 2 * half, k_out + t * kv_heads * 2 * half, kv_heads, half, c.data(), s.data());
    }
  });
}

}  // namespace kwb::reference
