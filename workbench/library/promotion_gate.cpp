#include "library/promotion_gate.hpp"

#include "core/backend.hpp"
#include "eval/sanitizer_report.hpp"

namespace kwb::library {

namespace {

std::string tools_of(const core::SanitizerOutcome& s) {
  std::string t;
  for (const auto& r : s.runs) t += (t.empty() ? "" : ", ") + r.tool;
  return t;
}

}  // namespace

bool needs_sanitizer_gate(const core::Verdict& v) {
  return v.status == core::Status::accepted && v.summary.decision && v.summary.decision->promotable &&
         !core::is_backend(v.backend, core::Backend::cpu);
}

void apply_sanitizer_gate(core::Verdict& v, const core::SanitizerOutcome& s) {
  v.sanitizer = s;
  for (const auto& r : s.runs)
    for (auto& d : eval::sanitizer_diagnostics(r)) v.diagnostics.push_back(std::move(d));
  if (!v.summary.decision) return;
  auto& d = *v.summary.decision;
  if (s.status == "clean") {
    d.reason += "; compute-sanitizer clean on every test workload (" + tools_of(s) + ")";
    return;
  }
  if (s.status == "unavailable") {
    d.reason += "; not checked by compute-sanitizer (" + s.reason + ")";
    return;
  }
  d.promotable = false;
  v.summary.beats_incumbent = false;
  const std::string why = "not promotable: compute-sanitizer " +
                          std::string(s.status == "findings" ? "found errors" : "did not finish") +
                          " on the test workloads: " + s.reason + " (docs/profiles.md \"Clean before promotion\")";
  d.reason = why + "; " + d.reason;
  v.reason += "; " + why;
}

std::string sanitizer_trailer(const core::Verdict& v) {
  if (core::is_backend(v.backend, core::Backend::cpu)) return {};
  if (!v.sanitizer) return "not run (verdict decided before the sanitizer gate)";
  const auto& s = *v.sanitizer;
  if (s.status == "clean") return "clean (" + tools_of(s) + ")";
  if (s.status == "unavailable") return "not run (" + s.reason + ")";
  return s.status + " (" + s.reason + ")";
}

}  // namespace kwb::library
