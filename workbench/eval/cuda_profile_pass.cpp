// The profile pass of a CUDA candidate asked for one (docs/profiles.md): after the benchmark,
// each timed bench workload's chosen config run once under Nsight Compute in a session of its own
// (tool_pass.hpp, cuda_tool_pass.cpp); the profiles go into the workload's feedback, ncu's raw
// reports into verdict.profile (stored by the daemon as the candidate's `ncu` artifact).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/cuda_evaluation.hpp"
#include "eval/ncu_report.hpp"

namespace kwb::eval {

namespace {

// At most this many kernel launches of one call are profiled (a plan of several kernels).
constexpr int k_profiled_launches = 8;

}  // namespace

void CudaEvaluation::profile_bench_workloads() {
  core::ProfileOutcome out;
  ToolBinary ncu = find_ncu();
  if (!ncu.found()) {
    m_verdict.profile = core::ProfileOutcome{"unavailable", ncu.missing + "; the timed figures are not affected"};
    return;
  }
  ToolInvocation inv = ncu_invocation(ncu, ncu_profile_options(true), k_profiled_launches);
  nlohmann::json reports = nlohmann::json::array();
  std::vector<std::string> problems;
  int profiled = 0, asked = 0;
  bool sections_only = false;
  emit(Stage::benchmark, false, "profile: Nsight Compute on the bench workloads' chosen configs");
  // By index: run_under_tool gives the verdict back as it found it (a new vector of workloads).
  for (size_t i = 0; i < m_verdict.workloads.size(); ++i) {
    const core::WorkloadResult& row = m_verdict.workloads[i];
    if (row.kind != "bench" || !row.time || !row.feedback) continue;
    const std::string name = row.name;
    const core::Workload* w = nullptr;
    for (const auto& b : m_spec.bench_workloads)
      if (b.name == name) w = &b;
    if (!w) continue;
    ++asked;
    auto best = m_best_config.find(name);
    const size_t c = best == m_best_config.end() ? 0 : best->second;
    ToolRun run = run_under_tool(inv, {ToolCall{w, c, true}});
    auto profiles = ncu_profiles(run.report);
    // An ncu that refuses a metric by name fails the whole run (its ==ERROR== line, which the
    // parse error quotes): once more with the sections only (their metrics are ncu's own choice
    // for this chip), and from then on.
    if (run.ran && !profiles && !sections_only && run.report.find("==ERROR==") != std::string::npos) {
      sections_only = true;
      problems.push_back("ncu refused the metric list (" + profiles.error().what() + "): profiled with its sections only");
      inv = ncu_invocation(ncu, ncu_profile_options(false), k_profiled_launches);
      ToolRun again = run_under_tool(inv, {ToolCall{w, c, true}});
      again.ms += run.ms;
      run = std::move(again);
      profiles = ncu_profiles(run.report);
    }
    core::WorkloadResult& res = m_verdict.workloads[i];
    out.ms += run.ms;
    if (!run.ran) {
      problems.push_back(res.name + ": " + run.reason);
      continue;
    }
    reports.push_back({{"workload", res.name}, {"config", m_configs[c].label()}, {"csv", run.report}});
    if (!profiles) {
      problems.push_back(res.name + ": ncu's report did not read: " + profiles.error().what());
      continue;
    }
    if (profiles->empty()) {
      problems.push_back(res.name + ": ncu profiled no kernel of the candidate" +
                         (run.call ? " (the call failed under it: " + run.call->reason + ")" : ""));
      continue;
    }
    res.feedback->profile = std::move(*profiles);
    ++profiled;
  }
  m_verdict.summary.stage_ms["profile"] = out.ms;
  if (!reports.empty()) out.report = nlohmann::json{{"schema", "kwb.ncu.v1"}, {"reports", reports}}.dump();
  std::string why;
  for (const auto& p : problems) why += (why.empty() ? "" : "; ") + p;
  if (asked == 0) {
    out.status = "skipped";
    out.reason = "no bench workload was timed, so none was profiled";
  } else if (profiled == 0) {
    out.status = "failed";
    out.reason = "Nsight Compute gave no profile: " + why;
  } else {
    out.status = "measured";
    out.reason = fmt::format("{} of {} bench workload(s) profiled by Nsight Compute in a pass of its own ({:.0f} ms; "
                             "the timed figures are not affected){}",
                             profiled, asked, out.ms, why.empty() ? "" : "; not profiled: " + why);
  }
  m_verdict.profile = std::move(out);
}

}  // namespace kwb::eval
