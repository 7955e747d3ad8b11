// The sanitizer pass of a CUDA candidate (docs/profiles.md "Sanitizer"): after a crash, a wrong
// result or a hang, its first failing workload and config run again under compute-sanitizer in a
// session of its own (tool_pass.hpp, cuda_tool_pass.cpp): memcheck; racecheck and synccheck where
// its kernels use shared memory or barriers; initcheck. What the tools report goes into the
// verdict's diagnostics[] and verdict.sanitizer; the status stays what the checks found.
#include <filesystem>

#include <fmt/format.h>

#include "eval/cuda_evaluation.hpp"
#include "eval/sanitizer_report.hpp"

namespace kwb::eval {

namespace {

constexpr int k_print_limit = 10;

// Whether a config's kernels use shared memory or barriers (no compiler facts: assume they do).
bool shares_memory(const std::vector<core::ConfigFacts>& facts, size_t c) {
  if (c >= facts.size() || facts[c].kernels.empty()) return true;
  for (const auto& k : facts[c].kernels) {
    if (k.static_smem_bytes > 0 || k.barriers > 0) return true;
    for (const auto& o : k.occupancy)
      if (o.dynamic_smem_bytes > 0) return true;
  }
  return false;
}

}  // namespace

core::SanitizerOutcome CudaEvaluation::run_sanitizers(const std::vector<std::string>& tools,
                                                      const std::vector<ToolCall>& calls, int timeout_ms) {
  core::SanitizerOutcome out;
  ToolBinary tool = find_compute_sanitizer();
  if (!tool.found()) {
    out.status = "unavailable";
    out.reason = tool.missing;
    return out;
  }
  int findings = 0, failed = 0;
  std::string summary;
  for (const auto& name : tools) {
    ToolInvocation inv = sanitizer_invocation(tool, name, k_print_limit);
    inv.command_timeout_ms = timeout_ms;
    ToolRun run = run_under_tool(inv, calls);
    out.ms += run.ms;
    core::SanitizerRun r = run.ran ? parse_sanitizer_report(name, run.report)
                                   : core::SanitizerRun{name, "failed", 0, 0, {}, run.reason};
    for (auto& f : r.findings)  // NVRTC and nvcc compile the source as candidate.cu
      if (std::filesystem::path(f.file).filename() == "candidate.cu") f.file = m_cand.source_name;
    findings += r.status == "findings";
    failed += r.status == "failed";
    summary += fmt::format("{}{}: {}", summary.empty() ? "" : "; ", name,
                           r.status == "findings" ? fmt::format("{} error(s)", r.error_count)
                           : r.status == "failed" ? "did not finish (" + r.reason + ")"
                                                  : r.status);
    out.runs.push_back(std::move(r));
  }
  out.status = findings ? "findings" : failed ? "failed" : "clean";
  out.reason = fmt::format("{} ({:.0f} ms)", summary, out.ms);
  return out;
}

void CudaEvaluation::sanitize_first_failure() {
  const core::Status s = m_verdict.status;
  if (!m_first_failing || !m_first_failing->workload || !m_device.present ||
      !(s == core::Status::crashed || s == core::Status::incorrect || s == core::Status::time_limit))
    return;
  const core::Workload& w = *m_first_failing->workload;
  const size_t c = m_first_failing->config;
  // A hang hangs under every tool: memcheck alone, and no longer than twice the run timeout.
  std::vector<std::string> tools = {"memcheck"};
  if (s != core::Status::time_limit) {
    if (shares_memory(m_verdict.compiler_facts, c)) tools.insert(tools.end(), {"racecheck", "synccheck"});
    tools.push_back("initcheck");
  }
  emit(Stage::validate, false, "sanitizer: " + w.name + " under compute-sanitizer");
  core::SanitizerOutcome out =
      run_sanitizers(tools, {ToolCall{&w, c, m_first_failing->bench}},
                     s == core::Status::time_limit ? 2 * m_opt.run_timeout_ms : 6 * m_opt.run_timeout_ms);
  out.workload = w.name;
  out.config = c < m_configs.size() ? m_configs[c].label() : "";
  if (out.status != "unavailable")
    out.reason += fmt::format(" [{}] on workload {}", out.config.empty() ? "default" : out.config, w.name);
  for (const auto& r : out.runs)
    for (auto& d : sanitizer_diagnostics(r)) m_verdict.diagnostics.push_back(std::move(d));
  m_verdict.summary.stage_ms["sanitizer"] = out.ms;
  m_verdict.sanitizer = std::move(out);
}

std::optional<core::SanitizerOutcome> CudaEvaluation::sanitize_for_promotion() {
  if (!m_device.present || m_cubin_data.empty()) return std::nullopt;
  std::vector<ToolCall> calls;
  for (size_t c = 0; c < m_cubin_data.size(); ++c)
    for (const auto& w : m_test_workloads)
      if (selected(w, false)) calls.push_back(ToolCall{&w, c, false});
  emit(Stage::decide, false, "sanitizer: every test workload under memcheck, racecheck and synccheck");
  core::SanitizerOutcome out = run_sanitizers({"memcheck", "racecheck", "synccheck"}, calls, 6 * m_opt.run_timeout_ms);
  out.workload = "every test workload";
  out.config = m_cubin_data.size() > 1 ? "every config" : (m_configs.empty() ? "" : m_configs[0].label());
  return out;
}

}  // namespace kwb::eval
