#include "eval/analysis_outcome.hpp"

#include <fmt/format.h>

namespace kwb::eval {

AnalysisOutcome fold_analysis(const analysis::Report& report, core::Verdict& verdict, const std::string& file,
                              const std::string& why_allowed) {
  AnalysisOutcome out;
  if (!report.available) {
    verdict.diagnostics.push_back(core::Diagnostic{file, 0, 0, "note",
                                                   report.unavailable_reason + " (" + why_allowed + ")",
                                                   "analysis-unavailable"});
    out.summary = "static analysis unavailable";
    return out;
  }
  verdict.diagnostics.insert(verdict.diagnostics.end(), report.findings.begin(), report.findings.end());
  if (const core::Diagnostic* e = report.first_error()) {
    out.failed = report.timed_out ? core::Status::time_limit
                 : e->rule == "parse" ? core::Status::compile_error
                                      : core::Status::rejected;
    out.reason = analysis::format_finding(*e);
  }
  out.summary = fmt::format("{} finding{}, {:.0f} ms{}", report.findings.size(), report.findings.size() == 1 ? "" : "s",
                            report.ms, report.cached ? " (cached)" : "");
  return out;
}

}  // namespace kwb::eval
