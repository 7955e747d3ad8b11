#pragma once
// Clean before promotion (docs/profiles.md "Clean before promotion"): a CUDA candidate the
// decision found promotable stays so only when compute-sanitizer ran its test workloads clean
// (memcheck, racecheck, synccheck). The pass is the evaluation's (Evaluation::
// sanitize_for_promotion); this reads its outcome into the verdict.
#include <optional>
#include <string>

#include "core/verdict.hpp"

namespace kwb::library {

// Whether `v` is a candidate the gate must see: accepted, compared and found promotable.
bool needs_sanitizer_gate(const core::Verdict& v);
// Puts the pass's outcome into `v` (verdict.sanitizer, its reports in diagnostics[]) and keeps
// the decision promotable only when it is clean. A machine without compute-sanitizer
// ("unavailable") keeps it promotable and says so in the decision's reason; findings or a tool
// that did not finish make it not promotable.
void apply_sanitizer_gate(core::Verdict& v, const core::SanitizerOutcome& s);
// The promotion commit's Kwb-Sanitizer trailer for `v`: "clean (memcheck, racecheck, synccheck)",
// "not run (why)"; empty where no gate applies (cpu).
std::string sanitizer_trailer(const core::Verdict& v);

}  // namespace kwb::library
