#pragma once
// Which of a spec's variants a candidate implements, for every backend's analyze stage
// (cpu_evaluation.hpp, cuda_evaluation.hpp).
#include "core/candidate.hpp"
#include "core/spec.hpp"
#include "util/error.hpp"

namespace kwb::eval {

// The variant a candidate implements: the one named, else the only one, else the one whose
// entry symbol the source mentions. Errors say which variants exist.
util::Result<const core::Variant*> choose_variant(const core::Spec& spec, const core::Candidate& cand);

}  // namespace kwb::eval
