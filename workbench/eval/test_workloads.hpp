#pragma once
// The test workloads of one evaluation: the spec's published ones, then those drawn from its
// shapes with the evaluation's seed (docs/specs.md "Shapes"). Bench workloads are never drawn.
#include <vector>

#include "core/spec.hpp"
#include "eval/seeds.hpp"
#include "util/error.hpp"

namespace kwb::eval {

// Takes one seed from `seeds` (whether or not the spec has shapes, so a fixed --seed gives the
// same input seeds either way). The error blames the spec.
util::Result<std::vector<core::Workload>> evaluation_test_workloads(const core::Spec& spec, SeedSource& seeds);

}  // namespace kwb::eval
