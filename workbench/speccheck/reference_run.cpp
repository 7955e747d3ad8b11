#include "speccheck/reference_run.hpp"

#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>

#include "eval/compare.hpp"
#include "eval/inputs.hpp"
#include "spec/generators.hpp"
#include "spec/loader.hpp"
#include "util/random.hpp"

namespace kwb::speccheck::detail {

namespace {

template <class T>
bool move_one_ulp(T& x) {
  if (!std::isfinite(x) || x == 0) return false;
  T y = std::nextafter(x, std::copysign(std::numeric_limits<T>::infinity(), x));
  if (!std::isfinite(y)) return false;
  x = y;
  return true;
}

template <class T>
bool perturb(std::vector<unsigned char>& buf, size_t count) {
  bool moved = false;
  T* p = reinterpret_cast<T*>(buf.data());
  for (size_t i = 0; i < count; ++i) moved = move_one_ulp(p[i]) || moved;
  return moved;
}

}  // namespace

std::string Case::context() const {
  if (workload->drawn)  // "drawn:rows=3,cols=2" or "probe:..."
    return fmt::format("shape {}, variant {}, distribution {}", workload->name, variant->name, distribution->name);
  return fmt::format("workloads.test[{}] '{}', variant {}, distribution {}", workload_index, workload->name,
                     variant->name, distribution->name);
}

std::string Case::tensor_path(const std::string& name) const {
  for (size_t i = 0; i < spec->tensors.size(); ++i)
    if (spec->tensors[i].name == name) return fmt::format("tensors[{}]", i);
  return "tensors";
}

bool fill_shapes(Case& c) {
  for (const auto& t : c.spec->tensors) {
    auto shape = spec::tensor_shape(*c.spec, t, c.workload->params);
    if (!shape) return false;
    size_t n = 1;
    for (int64_t d : *shape) n *= size_t(d);
    c.shapes[t.name] = *shape;
    c.counts[t.name] = n;
  }
  return true;
}

util::Result<Buffers> draw_inputs(const Case& c, uint64_t seed) {
  util::Rng rng(seed);
  Buffers out;
  auto generators = spec::resolve_distribution(*c.spec, spec::distribution_index(*c.spec, *c.distribution),
                                               c.workload->params, c.workload->name);
  if (!generators) return std::unexpected(generators.error());
  for (const auto* t : c.spec->tensors_of(*c.variant)) {
    if (t->role == core::Role::out) continue;
    const core::DType dt = c.variant->dtypes.at(t->name);
    auto& buf = out[t->name];
    const auto& shape = c.shapes.at(t->name);
    buf.resize(c.counts.at(t->name) * core::dtype_size(dt));
    eval::fill_tensor_seeded(buf.data(), dt, c.counts.at(t->name), generators->at(t->name), rng.next(),
                             shape.empty() ? 0 : size_t(shape.back()));
  }
  return out;
}

Buffers perturb_inputs(const Case& c, const Buffers& inputs, bool& moved) {
  Buffers out = inputs;
  moved = false;
  for (auto& [name, buf] : out) {
    const core::DType dt = c.variant->dtypes.at(name);
    if (dt == core::DType::f32) moved = perturb<float>(buf, c.counts.at(name)) || moved;
    if (dt == core::DType::f64) moved = perturb<double>(buf, c.counts.at(name)) || moved;
  }
  return out;
}

util::Result<Outputs> run_reference(eval::Reference& ref, const Case& c, const Buffers& inputs, uint64_t poison_bits) {
  Outputs outputs;
  core::ReferenceArgs args;
  args.variant = c.variant->name;
  args.params = c.workload->params;
  args.scalars = c.workload->scalars;
  for (const auto& [name, buf] : inputs) args.inputs[name] = buf.data();
  for (const auto* t : c.spec->tensors_of(*c.variant)) {
    if (t->role == core::Role::in) continue;
    outputs[t->name].assign(c.counts.at(t->name), std::bit_cast<double>(poison_bits));
  }
  for (auto& [name, v] : outputs) args.outputs[name] = v.data();
  if (auto r = ref.compute(args); !r) return std::unexpected(r.error());
  return outputs;
}

uint64_t bits_of(double v) { return std::bit_cast<uint64_t>(v); }

std::string index_text(const std::vector<int64_t>& shape, size_t flat) {
  if (shape.empty()) return "[]";
  return fmt::format("[{}]", fmt::join(eval::unravel(int64_t(flat), shape), ", "));
}

}  // namespace kwb::speccheck::detail
