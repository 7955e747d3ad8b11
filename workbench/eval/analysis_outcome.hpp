#pragma once
// How every backend folds a static-analysis report into its verdict (docs/analysis.md "How
// findings decide"): unavailable analysis is a note and the evaluation goes on; otherwise every
// finding is a diagnostic, and the first error decides the verdict (a parse error is
// compile_error, an analyzer timeout time_limit, any other rule rejected).
#include <optional>
#include <string>

#include "analysis/analyzer.hpp"
#include "core/verdict.hpp"

namespace kwb::eval {

struct AnalysisOutcome {
  std::optional<core::Status> failed;  // set when an error finding decides the verdict
  std::string reason;                  // the deciding finding, formatted
  std::string summary;                 // "3 findings, 12 ms (cached)" or "static analysis unavailable"
};

// `why_allowed` ends the unavailable note: "(<why_allowed>)".
AnalysisOutcome fold_analysis(const analysis::Report& report, core::Verdict& verdict, const std::string& file,
                              const std::string& why_allowed);

}  // namespace kwb::eval
