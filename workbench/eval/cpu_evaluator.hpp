#pragma once
// The CPU evaluation pipeline: compile (sandboxed) -> validate every test workload under every
// distribution and every bench workload (fresh secret seeds) -> benchmark -> verdict.
#include "core/candidate.hpp"
#include "core/reference.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "eval/cpu_device.hpp"
#include "eval/options.hpp"

namespace kwb::eval {

// The variant a candidate implements: the one named, else the only one, else the one whose
// entry symbol the source mentions. Errors say which variants exist.
util::Result<const core::Variant*> choose_variant(const core::Spec& spec, const core::Candidate& cand);

// Never throws for anything the candidate does: every failure becomes a verdict.
core::Verdict evaluate_cpu(const core::Spec& spec, core::ReferenceFn reference, const core::Candidate& cand,
                           const EvalOptions& opt, const CpuDevice& device);

}  // namespace kwb::eval
