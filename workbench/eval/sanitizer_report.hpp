#pragma once
// compute-sanitizer's text report read into a core::SanitizerRun (issue 34, docs/profiles.md
// "Sanitizer"): memcheck's invalid accesses, racecheck's races and hazards, synccheck's barrier
// errors, initcheck's uninitialized reads, the CUDA API errors they cause, and the summary line
// ("ERROR SUMMARY: N errors", "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)").
// Pure text in, values out; never throws, whatever the text: output that does not end in a summary
// is a run that "failed", with the reason.
#include <string_view>
#include <vector>

#include "core/profile.hpp"
#include "core/verdict.hpp"

namespace kwb::eval {

// At most this many findings are kept in a run (its counts cover all of them).
inline constexpr size_t k_sanitizer_findings_kept = 10;

// The report of one run of `tool` ("memcheck" | "racecheck" | "synccheck" | "initcheck"): the
// tool's log (--log-file) or its standard output. Where lines carry the "========= " prefix, only
// those are read (the rest is the program's own output).
core::SanitizerRun parse_sanitizer_report(std::string_view tool, std::string_view text);

// The run's findings as the verdict's diagnostics[] (rule: the tool; severity: "error" or
// "warning"), each message naming the access, its size, thread, block and the tool. A CUDA API
// error that follows a device finding (the launch that failed because of it) is left out.
std::vector<core::Diagnostic> sanitizer_diagnostics(const core::SanitizerRun& run);

}  // namespace kwb::eval
