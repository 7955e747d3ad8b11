// draw_workloads: edge-biased param values, rejection against the constraints and the element
// cap, no repeats of published or earlier drawn shapes.
#include "spec/shape_draw.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "spec/generators.hpp"
#include "spec/loader_parts.hpp"

namespace kwb::spec {

namespace {

// Uniform in [0, n) without modulo bias worth mentioning (Lemire's multiply-shift).
uint64_t below(util::Rng& rng, uint64_t n) { return uint64_t((unsigned __int128)rng.next() * n >> 64); }

int64_t uniform(util::Rng& rng, int64_t lo, int64_t hi) { return lo + int64_t(below(rng, uint64_t(hi - lo) + 1)); }

// Log-uniform over [lo, hi]: every order of magnitude as likely as any other, so small and
// mid-sized values come up for ranges that reach far (1..70000 uniform is almost always > 7000).
int64_t log_uniform(util::Rng& rng, int64_t lo, int64_t hi) {
  const double a = std::log(double(lo)), b = std::log(double(hi) + 1.0);
  const double v = std::floor(std::exp(a + rng.uniform01() * (b - a)));
  return std::clamp(int64_t(v), lo, hi);
}

uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m) { return uint64_t((unsigned __int128)a * b % m); }

uint64_t pow_mod(uint64_t b, uint64_t e, uint64_t m) {
  uint64_t r = 1;
  for (b %= m; e; e >>= 1, b = mul_mod(b, b, m))
    if (e & 1) r = mul_mod(r, b, m);
  return r;
}

// A prime near `x` within [lo, hi]: the next one up, else the next one down, else x itself.
int64_t prime_near(int64_t x, int64_t lo, int64_t hi) {
  for (int64_t v = x; v <= hi && v - x < 4096; ++v)
    if (is_prime(v)) return v;
  for (int64_t v = x - 1; v >= lo && x - v < 4096; --v)
    if (is_prime(v)) return v;
  return x;
}

// One off a multiple of a power of two from 32 to 1024 (tile, warp and vector widths) near `x`.
int64_t off_a_multiple(util::Rng& rng, int64_t x, int64_t lo, int64_t hi) {
  const int64_t m = int64_t{32} << below(rng, 6);
  const int64_t k = std::max<int64_t>(1, (x + m / 2) / m);
  const int64_t v = k * m + (below(rng, 2) ? 1 : -1);
  return std::clamp(v, lo, hi);
}

std::string where_of(const core::Spec& spec) {
  return fmt::format("{}: shapes", spec.file.empty() ? spec.op : spec.file.string());
}

std::string params_text(const core::Spec& spec, const Params& p, std::string_view sep) {
  std::string s;
  for (const auto& name : spec.params) s += fmt::format("{}{}={}", s.empty() ? "" : sep, name, p.at(name));
  return s;
}

}  // namespace

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t p : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37})
    if (n % p == 0) return n == p;
  // Miller-Rabin with the first 12 primes as bases: exact for every 64-bit n.
  const uint64_t u = uint64_t(n);
  uint64_t d = u - 1;
  int s = 0;
  while ((d & 1) == 0) d >>= 1, ++s;
  for (uint64_t a : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}) {
    uint64_t x = pow_mod(a, d, u);
    if (x == 1 || x == u - 1) continue;
    bool composite = true;
    for (int i = 1; i < s && composite; ++i) {
      x = mul_mod(x, x, u);
      composite = x != u - 1;
    }
    if (composite) return false;
  }
  return true;
}

int64_t draw_param(util::Rng& rng, int64_t lo, int64_t hi) {
  // Percent of picks: the ends of the range (1 is the edge most kernels get wrong), just above
  // the low end, a prime, one off a multiple of 32..1024, log-uniform, uniform.
  const uint64_t pick = below(rng, 100);
  if (pick < 10) return lo;
  if (pick < 16) return hi;
  if (pick < 24) return std::min(hi, lo + 1 + int64_t(below(rng, 3)));
  const int64_t base = log_uniform(rng, lo, hi);
  if (pick < 44) return prime_near(base, lo, hi);
  if (pick < 64) return off_a_multiple(rng, base, lo, hi);
  if (pick < 85) return base;
  return uniform(rng, lo, hi);
}

int64_t draw_large_param(util::Rng& rng, int64_t lo, int64_t hi) {
  // The top decade of the range (log-uniform), its end, a prime or one off a multiple there.
  const int64_t base = log_uniform(rng, std::max(lo, hi / 10), hi);
  const uint64_t pick = below(rng, 100);
  if (pick < 30) return hi;
  if (pick < 55) return prime_near(base, lo, hi);
  if (pick < 80) return off_a_multiple(rng, base, lo, hi);
  return base;
}

double draw_scalar(util::Rng& rng, double lo, double hi) {
  if (!(lo < hi)) return lo;
  const uint64_t pick = below(rng, 100);
  if (pick < 15) return lo;
  if (pick < 30) return hi;
  const bool one_sign = lo > 0 || hi < 0;
  const double a = std::fabs(lo), b = std::fabs(hi);
  if (one_sign && std::max(a, b) >= 10 * std::min(a, b)) {
    const double v = std::exp(std::log(std::min(a, b)) + rng.uniform01() * (std::log(std::max(a, b)) - std::log(std::min(a, b))));
    return std::clamp(lo > 0 ? v : -v, lo, hi);
  }
  return std::clamp(lo + rng.uniform01() * (hi - lo), lo, hi);
}

util::Result<ShapeSampler> ShapeSampler::make(const core::Spec& spec) {
  if (!spec.shapes) return util::fail(where_of(spec), "the spec declares no shapes");
  ShapeSampler s;
  s.m_spec = &spec;
  for (const auto& text : spec.shapes->constraints) {
    auto e = Expr::parse_condition(text);
    if (!e) return util::fail(where_of(spec), "bad constraint " + e.error().message);
    s.m_constraints.push_back(std::move(*e));
  }
  for (const auto& t : spec.tensors) {
    TensorDims& td = s.m_tensors.emplace_back(TensorDims{t.name, {}});
    for (const auto& text : t.shape) {
      auto e = Expr::parse(text);
      if (!e) return util::fail(where_of(spec), fmt::format("tensor '{}': {}", t.name, e.error().message));
      td.dims.push_back(std::move(*e));
    }
  }
  for (const auto& v : spec.variants)
    for (const auto& [field, text] : {std::pair{"bytes", &v.roofline.bytes}, {"flops", &v.roofline.flops}}) {
      auto e = Expr::parse(*text);
      if (!e) return util::fail(where_of(spec), e.error().message);
      s.m_rooflines.emplace_back(fmt::format("variant '{}' roofline.{}", v.name, field), std::move(*e));
    }
  return s;
}

Params ShapeSampler::propose(util::Rng& rng, std::optional<size_t> large) const {
  Params p;
  const auto& ranges = m_spec->shapes->ranges;
  for (size_t i = 0; i < ranges.size(); ++i)
    p[ranges[i].param] = large == i ? draw_large_param(rng, ranges[i].lo, ranges[i].hi)
                                    : draw_param(rng, ranges[i].lo, ranges[i].hi);
  return p;
}

util::Result<bool> ShapeSampler::accepts(const Params& p) const {
  const Env env(p.begin(), p.end());
  for (const auto& c : m_constraints) {
    auto v = c.eval(env);
    if (!v || *v == 0) return false;  // an overflow or a division by zero: the constraint does not hold
  }
  auto invalid = [&](const std::string& what) {
    return util::fail(where_of(*m_spec), fmt::format("drawn shape {}: {} (narrow shapes.ranges or add a constraint "
                                                     "that excludes it)",
                                                     params_text(*m_spec, p, ", "), what));
  };
  int64_t total = 0;
  bool too_large = false;
  for (const auto& t : m_tensors) {
    int64_t elements = 1;
    for (size_t i = 0; i < t.dims.size(); ++i) {
      auto v = t.dims[i].eval(env);
      if (!v) return invalid(fmt::format("tensor '{}': dimension {}: {}", t.tensor, i, v.error().message));
      if (*v < 1)
        return invalid(fmt::format("tensor '{}': dimension {} \"{}\" is {}; dimensions must be >= 1", t.tensor, i,
                                   t.dims[i].text(), *v));
      too_large = too_large || __builtin_mul_overflow(elements, *v, &elements);
    }
    too_large = too_large || __builtin_add_overflow(total, elements, &total);
  }
  if (too_large || total > m_spec->shapes->max_elements) return false;
  for (const auto& [what, e] : m_rooflines) {
    auto v = e.eval(env);
    if (!v) return invalid(fmt::format("{}: {}", what, v.error().message));
    if (*v < 0) return invalid(fmt::format("{} \"{}\" is {}; it must be >= 0", what, e.text(), *v));
  }
  for (size_t d = 0; d < m_spec->distributions.size(); ++d)
    for (const auto& [tensor, g] : m_spec->distributions[d].tensors) {
      if (!needs_resolving(g)) continue;
      auto resolved = resolve_generator(*m_spec, d, tensor, p, "this shape");
      if (!resolved) return invalid(resolved.error().where + ": " + resolved.error().message);
    }
  if (auto s = detail::check_set_shapes(*m_spec, p, "this shape"); !s)
    return invalid(s.error().where + ": " + s.error().message);
  return true;
}

std::string drawn_name(const core::Spec& spec, const Params& p, const std::map<std::string, double>& scalars) {
  std::string name = "drawn:" + params_text(spec, p, ",");
  if (spec.shapes)
    for (const auto& r : spec.shapes->scalars)
      if (r.lo < r.hi && scalars.contains(r.scalar)) name += fmt::format(",{}={:.6g}", r.scalar, scalars.at(r.scalar));
  return name;
}

util::Result<std::vector<core::Workload>> draw_workloads(const core::Spec& spec, uint64_t seed) {
  std::vector<core::Workload> out;
  if (!spec.shapes) return out;
  auto sampler = ShapeSampler::make(spec);
  if (!sampler) return std::unexpected(sampler.error());
  std::set<Params> seen;
  for (const auto& w : spec.test_workloads) seen.insert(w.params);
  util::Rng rng(seed);
  util::Rng scalar_rng(seed ^ 0x5ca1a75ca1a75ca1ull);  // its own stream: params draw as without scalars
  // A draw stops early when the ranges hold no new acceptable shape: after this many acceptable
  // proposals that were all seen before, it takes the space as exhausted.
  constexpr int k_max_repeats = 1000;
  // Draw i < (number of params) takes param (start + i) % params from the top of its range for
  // its first k_large_proposals proposals (then from the whole range, should the constraints
  // and the cap rule the top out): every evaluation probes the large end of every param as far
  // as the cap allows, where independent picks under a cap mostly give small shapes.
  constexpr int k_large_proposals = 1000;
  const size_t nparams = spec.shapes->ranges.size();
  const size_t start = size_t(below(rng, nparams));
  for (int i = 0; i < spec.shapes->count; ++i) {
    const std::optional<size_t> large =
        size_t(i) < nparams ? std::optional<size_t>((start + size_t(i)) % nparams) : std::nullopt;
    int repeats = 0;
    bool drawn = false, any = false;
    for (int n = 0; n < k_max_proposals && !drawn && repeats < k_max_repeats; ++n) {
      Params p = sampler->propose(rng, n < k_large_proposals ? large : std::nullopt);
      auto ok = sampler->accepts(p);
      if (!ok) return std::unexpected(ok.error());
      if (!*ok) continue;
      any = true;
      if (!seen.insert(p).second) {
        ++repeats;
        continue;
      }
      core::Workload w;
      for (const auto& r : spec.shapes->scalars) w.scalars[r.scalar] = draw_scalar(scalar_rng, r.lo, r.hi);
      w.name = drawn_name(spec, p, w.scalars);
      w.params = std::move(p);
      w.drawn = true;
      out.push_back(std::move(w));
      drawn = true;
    }
    if (drawn) continue;
    if (any || !out.empty()) break;  // every acceptable shape seen already: fewer new ones exist
    return util::fail(where_of(spec),
                      fmt::format("no shape from shapes.ranges met the constraints and max_elements ({}) in {} "
                                  "proposals; widen the ranges or loosen the constraints",
                                  spec.shapes->max_elements, k_max_proposals));
  }
  return out;
}

}  // namespace kwb::spec
