#include "eval/inputs.hpp"

#include <cmath>
#include <limits>

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

double draw(const core::Generator& g, util::Rng& rng) {
  if (g.kind == "uniform") return g.lo + (g.hi - g.lo) * rng.uniform01();
  if (g.kind == "normal") return g.mean + g.stddev * rng.normal();
  if (g.kind == "int_uniform") {
    auto lo = int64_t(g.lo), hi = int64_t(g.hi);
    uint64_t span = uint64_t(hi - lo) + 1;
    return double(lo + int64_t(span == 0 ? rng.next() : rng.next() % span));
  }
  return g.value;  // constant
}

}  // namespace

void fill_tensor(void* data, core::DType dtype, size_t count, const core::Generator& gen, util::Rng& rng) {
  const bool has_specials = gen.specials_fraction > 0 && !gen.specials.empty();
  for (size_t i = 0; i < count; ++i) {
    double v = draw(gen, rng);
    if (has_specials && rng.uniform01() < gen.specials_fraction)
      v = special_value(gen.specials[rng.next() % gen.specials.size()], dtype);
    core::store_from_double(data, dtype, i, v);
  }
}

}  // namespace kwb::eval
