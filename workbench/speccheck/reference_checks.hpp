#pragma once
// The checks that run a spec's reference (docs/specs.md, "Checking a spec"): on every test
// workload, under every distribution, for every variant, the reference
//  - writes every output element (outputs poisoned with a NaN, then with a second, finite poison;
//    an element that keeps both is unwritten),
//  - is deterministic (the two runs agree bit for bit; within tolerance for "deterministic": false),
//  - writes finite outputs where the spec promises them (TensorSpec::finite),
//  - writes values its outputs' dtypes can hold, within the tolerance once rounded to them,
//  - is no more sensitive than the tolerance allows to inputs moved one ulp (tolerance sanity).
// The reference is reached through eval::Reference, so the checks run against whatever opened it.
#include <cstdint>

#include "core/spec.hpp"
#include "eval/reference.hpp"
#include "speccheck/problem.hpp"

namespace kwb::speccheck {

struct ReferenceCheckOptions {
  uint64_t seed = 0x6b7762737065636bull;  // inputs are drawn from it: runs are reproducible
  // Tolerance sanity: one-ulp perturbations that break the tolerance on more than this share of
  // an output's elements (in one workload and distribution) are an error; fewer, a warning
  // (isolated elements: cancellation, where a kernel computing the same rounded operation is exact).
  double widespread_share = 0.01;
};

// Whether output `t` must be finite under distribution `d`: TensorSpec::finite when given, else
// when no input generator of `d` has a nan, inf, -inf, max or lowest special.
bool requires_finite(const core::TensorSpec& t, const core::Distribution& d);

void check_reference_runs(const core::Spec& spec, eval::Reference& reference, const ReferenceCheckOptions& options,
                          Findings& out);

}  // namespace kwb::speccheck
