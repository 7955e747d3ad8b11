#pragma once
// The decision part of a verdict (docs/library.md "Verdict first, decision second"): the verdict
// is stored as soon as the candidate's own measurements are; the comparison with the incumbent
// runs after it on a copy, and only its fields are carried into the stored verdict.
#include <nlohmann/json.hpp>

#include "core/verdict.hpp"

namespace kwb::core {

struct ComparisonPart {
  Verdict merged;             // `stored` with the comparison's fields
  nlohmann::json comparison;  // those fields alone (the candidate's `comparison`, state done)
};

// `stored`: the verdict as written; `judged`: a copy of it after the comparison. Carried over:
// summary.incumbent, decision, geomean_vs_incumbent, beats_incumbent, machine, resources, stage_ms.decide
// (wall_ms grows by it), each bench workload's vs_incumbent and comparison, and what the judge
// appended to the reason. Never the status or the measurements: a candidate that failed during
// the comparison keeps its verdict, and its decision is "not promotable" naming the failure.
ComparisonPart merge_comparison(const Verdict& stored, const Verdict& judged);

}  // namespace kwb::core
