#include "eval/inputs.hpp"

#include <cmath>
#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <unordered_set>
#include <vector>

#include "util/parallel.hpp"

namespace kwb::eval {

namespace {

double special_value(const std::string& name, core::DType t) {
  if (core::dtype_is_fp8(t)) {
    const bool e4m3 = t == core::DType::f8e4m3;
    if (name == "max") return e4m3 ? 448.0 : 57344.0;
    if (name == "lowest") return e4m3 ? -448.0 : -57344.0;
    if (name == "denormal") return e4m3 ? 0x1p-9 * 3 : 0x1p-16 * 3;
  }
  if (t == core::DType::bf16) {
    if (name == "max") return core::bf16_to_float(0x7f7f);
    if (name == "lowest") return core::bf16_to_float(0xff7f);
  }
  if (t == core::DType::f16) {
    if (name == "max") return 65504.0;
    if (name == "lowest") return -65504.0;
    if (name == "denormal") return 0x1p-24 * 3;
  }
  const bool f32ish = t != core::DType::f64;
  if (name == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (name == "inf") return std::numeric_limits<double>::infinity();
  if (name == "-inf") return -std::numeric_limits<double>::infinity();
  if (name == "+0") return 0.0;
  if (name == "-0") return -0.0;
  if (name == "denormal") {
    if (t == core::DType::bf16) return 1e-39;  // below bf16/f32 normal range (f32 denormal, bf16-representable)
    return f32ish ? double(std::numeric_limits<float>::denorm_min()) * 1000 : 1e-310;
  }
  if (name == "max") return f32ish ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  if (name == "lowest")
    return f32ish ? double(std::numeric_limits<float>::lowest()) : std::numeric_limits<double>::lowest();
  return 0.0;
}

enum class Kind { uniform, normal, int_uniform, constant };

Kind kind_of(const std::string& k) {
  if (k == "uniform") return Kind::uniform;
  if (k == "normal") return Kind::normal;
  if (k == "int_uniform") return Kind::int_uniform;
  return Kind::constant;
}

// The generator's kind is resolved once per tensor, not per element (bench tensors hold
// hundreds of millions of elements).
template <class Store>
void fill(const core::Generator& g, Kind kind, size_t count, util::Rng& rng, const std::vector<double>& specials,
          Store store) {
  const double lo = g.lo, span = g.hi - g.lo;
  const auto ilo = int64_t(g.lo);
  const uint64_t ispan = uint64_t(int64_t(g.hi) - ilo) + 1;
  const bool has_specials = g.specials_fraction > 0 && !specials.empty();
  for (size_t i = 0; i < count; ++i) {
    double v;
    switch (kind) {
      case Kind::uniform: v = lo + span * rng.uniform01(); break;
      case Kind::normal: v = g.mean + g.stddev * rng.normal(); break;
      case Kind::int_uniform: v = double(ilo + int64_t(ispan == 0 ? rng.next() : rng.next() % ispan)); break;
      default: v = g.value;
    }
    if (has_specials && rng.uniform01() < g.specials_fraction) v = specials[rng.next() % specials.size()];
    store(i, v);
  }
}

uint64_t below(util::Rng& rng, uint64_t n) { return uint64_t((unsigned __int128)rng.next() * n >> 64); }

// `count` distinct values of [lo, hi] in random order (hi - lo + 1 >= count: spec/generators.cpp).
void distinct_values(util::Rng& rng, int64_t lo, int64_t hi, size_t count, std::vector<int64_t>& out) {
  out.clear();
  const uint64_t span = uint64_t(hi - lo) + 1;
  if (span <= 4 * uint64_t(count) + 64) {  // a partial Fisher-Yates shuffle of the whole range
    std::vector<int64_t> all(span);
    for (uint64_t i = 0; i < span; ++i) all[i] = lo + int64_t(i);
    for (size_t i = 0; i < count; ++i) {
      std::swap(all[i], all[i + below(rng, span - i)]);
      out.push_back(all[i]);
    }
    return;
  }
  std::unordered_set<int64_t> seen;  // a sparse draw: rejection
  while (out.size() < count) {
    const int64_t v = lo + int64_t(below(rng, span));
    if (seen.insert(v).second) out.push_back(v);
  }
}

// `n` lengths in [mn, mx] summing to `end` (n * mn <= end <= n * mx: spec/generators.cpp), of
// varied shapes: even, skewed (a few long sequences), with empty ones where mn is 0.
std::vector<int64_t> lengths(util::Rng& rng, int64_t n, int64_t end, int64_t mn, int64_t mx) {
  std::vector<int64_t> a(size_t(n), 0);
  const int64_t cap = mx - mn;
  int64_t rem = end - n * mn;
  const uint64_t shape = below(rng, 3);  // 0 even-ish, 1 skewed, 2 with empty sequences
  std::vector<double> w(static_cast<size_t>(n));
  double total = 0;
  for (auto& x : w) {
    const double u = rng.uniform01();
    x = shape == 0 ? 0.5 + u : shape == 1 ? u * u * u * u : (rng.uniform01() < 0.3 ? 0.0 : u);
    total += x;
  }
  if (total > 0)
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = std::min<int64_t>(cap, int64_t(double(rem) * w[i] / total));
      rem -= a[i];
    }
  for (int64_t k = 0; rem > 0 && k < 2 * n; ++k) {  // what rounding and the cap left, spread at random
    const size_t i = size_t(below(rng, uint64_t(n)));
    const int64_t take = std::min({rem, cap - a[i], std::max<int64_t>(1, rem / n)});
    a[i] += take;
    rem -= take;
  }
  for (size_t i = 0; rem > 0 && i < a.size(); ++i) {  // and a sweep, so that it always ends
    const int64_t take = std::min(rem, cap - a[i]);
    a[i] += take;
    rem -= take;
  }
  for (auto& x : a) x += mn;
  return a;
}

// offsets, distinct, permutation: values that depend on the whole tensor (one pass, one thread).
void fill_structured(void* data, core::DType dtype, size_t count, const core::Generator& g, uint64_t seed,
                     size_t row_length) {
  util::Rng rng(seed);
  if (g.kind == "offsets") {
    const auto len = lengths(rng, int64_t(count) - 1, int64_t(g.end), int64_t(g.min_length), int64_t(g.max_length));
    int64_t at = 0;
    core::store_from_double(data, dtype, 0, 0);
    for (size_t i = 0; i < len.size(); ++i) core::store_from_double(data, dtype, i + 1, double(at += len[i]));
    return;
  }
  const size_t row = g.per_row ? std::max<size_t>(row_length, 1) : count;
  std::vector<int64_t> values;
  for (size_t begin = 0; begin < count; begin += row) {
    const size_t n = std::min(row, count - begin);
    const int64_t lo = g.kind == "permutation" ? 0 : int64_t(g.lo);
    const int64_t hi = g.kind == "permutation" ? int64_t(n) - 1 : int64_t(g.hi);
    distinct_values(rng, lo, hi, n, values);
    for (size_t i = 0; i < n; ++i) core::store_from_double(data, dtype, begin + i, double(values[i]));
  }
}

}  // namespace

void fill_tensor(void* data, core::DType dtype, size_t count, const core::Generator& gen, util::Rng& rng) {
  fill_tensor_seeded(data, dtype, count, gen, rng.next());
}

void fill_tensor_seeded(void* data, core::DType dtype, size_t count, const core::Generator& gen, uint64_t seed,
                        size_t row_length) {
  if (gen.kind == "offsets" || gen.kind == "distinct" || gen.kind == "permutation")
    return fill_structured(data, dtype, count, gen, seed, row_length);
  std::vector<double> specials;
  for (const auto& name : gen.specials) specials.push_back(special_value(name, dtype));
  const Kind kind = kind_of(gen.kind);
  const size_t chunks = (count + k_fill_chunk - 1) / k_fill_chunk;
  auto fill_chunk = [&](size_t c) {
    util::Rng chunk_rng(seed ^ (0x9e3779b97f4a7c15ULL * (c + 1)));
    size_t begin = c * k_fill_chunk, n = std::min(k_fill_chunk, count - begin);
    if (dtype == core::DType::f32) {
      auto* out = static_cast<float*>(data) + begin;
      fill(gen, kind, n, chunk_rng, specials, [out](size_t i, double v) { out[i] = float(v); });
    } else {
      fill(gen, kind, n, chunk_rng, specials,
           [data, dtype, begin](size_t i, double v) { core::store_from_double(data, dtype, begin + i, v); });
    }
  };
  util::parallel_chunks(chunks, fill_chunk);
}

}  // namespace kwb::eval
