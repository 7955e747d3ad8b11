#include "eval/inputs.hpp"

#include <cmath>
#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <vector>

#include "util/parallel.hpp"

namespace kwb::eval {

namespace {

double special_value(const std::string& name, core::DType t) {
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

}  // namespace

void fill_tensor(void* data, core::DType dtype, size_t count, const core::Generator& gen, util::Rng& rng) {
  fill_tensor_seeded(data, dtype, count, gen, rng.next());
}

void fill_tensor_seeded(void* data, core::DType dtype, size_t count, const core::Generator& gen, uint64_t seed) {
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
