#pragma once
// Fresh test shapes (docs/specs.md "Shapes"): test workloads drawn from a spec's param ranges
// with an evaluation's secret seed, so a kernel tuned to the published test shapes is caught.
// Values are edge-biased (the range's ends, primes, one off a multiple of 32..1024, log-uniform
// and uniform picks), and each of the first draws takes one param from the top of its range; a
// drawn shape meets every constraint and the element cap, and is never one of the published
// test shapes. Scalars (doubles) are drawn from their ranges with a generator of their own, so a
// spec's param draws do not depend on its scalars.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "spec/expr.hpp"
#include "util/error.hpp"
#include "util/random.hpp"

namespace kwb::spec {

using Params = std::map<std::string, int64_t>;

// One value from [lo, hi] (1 <= lo <= hi <= 2^53), edge-biased as described above.
int64_t draw_param(util::Rng& rng, int64_t lo, int64_t hi);
// One value from the top decade of [lo, hi] ([max(lo, hi/10), hi]), hi itself likeliest.
int64_t draw_large_param(util::Rng& rng, int64_t lo, int64_t hi);
// One value from [lo, hi] (finite): an end (15 % each), else log-uniform where the range keeps one
// sign and spans a factor of 10 or more, else uniform.
double draw_scalar(util::Rng& rng, double lo, double hi);
bool is_prime(int64_t n);

// The spec's shape rules, parsed once: proposes shapes from the ranges and checks them.
class ShapeSampler {
 public:
  // The spec must have `shapes`; its constraints, tensor shapes and rooflines must parse.
  static util::Result<ShapeSampler> make(const core::Spec& spec);

  // A shape from the ranges, every param drawn independently (not checked); param index `large`
  // from the top of its range.
  Params propose(util::Rng& rng, std::optional<size_t> large = std::nullopt) const;
  // true: the shape meets every constraint and the element cap; false: it does not. An error:
  // the constraints allow it but a tensor shape, a roofline, a generator's bounds or a set rule is
  // invalid for it (a fault of the spec); the message names the shape (and the field).
  util::Result<bool> accepts(const Params& p) const;

 private:
  struct TensorDims {
    std::string tensor;
    std::vector<Expr> dims;  // [] for a scalar (one element)
  };
  const core::Spec* m_spec = nullptr;
  std::vector<Expr> m_constraints;
  std::vector<TensorDims> m_tensors;
  std::vector<std::pair<std::string, Expr>> m_rooflines;  // "variant 'f32' roofline.bytes", expr
};

// "drawn:rows=37,cols=1021" (params in spec order; then scalars, "eps=1.25e-05", when drawn from a
// range).
std::string drawn_name(const core::Spec& spec, const Params& p, const std::map<std::string, double>& scalars = {});

// Proposals one drawn workload may take before the draw gives up (the spec's constraints and cap
// then reject practically everything; the loader refuses specs that accept under 1 %).
constexpr int k_max_proposals = 10000;

// spec.shapes->count test workloads (drawn = true, every backend) from `seed`: the same seed
// gives the same workloads. No two are equal, nor equal to a published test workload; where the
// ranges hold fewer new shapes than `count`, fewer are drawn. A spec without `shapes` draws none.
// Errors (naming the spec's file and `shapes`): no acceptable shape in k_max_proposals, or a shape
// the constraints allow that has an invalid tensor shape.
util::Result<std::vector<core::Workload>> draw_workloads(const core::Spec& spec, uint64_t seed);

}  // namespace kwb::spec
