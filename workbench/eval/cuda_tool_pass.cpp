// CudaEvaluation::run_under_tool: calls of configs on workloads in one runner session that a tool
// (Nsight Compute, compute-sanitizer: tool_pass.hpp) wraps. The pass leaves the verdict and
// the evaluation's own session as they were: what the tool found is added by the caller.
#include <fmt/format.h>

#include "eval/cuda_evaluation.hpp"
#include "util/clock.hpp"
#include "util/fs.hpp"

namespace kwb::eval {

namespace {

// The evaluation's state a tool pass borrows: restored when the pass ends, however it ends (a
// failed load or dims command decides the verdict through fail(); under a tool that must not).
struct Borrowed {
  core::Verdict verdict;
  bool decided;
  SharedArena* arena;
  RunnerSession* runner;
  std::optional<size_t> loaded;
};

constexpr size_t k_max_report_bytes = 16u << 20;

}  // namespace

ToolRun CudaEvaluation::run_under_tool(const ToolInvocation& tool, const std::vector<ToolCall>& calls) {
  ToolRun out;
  const auto t0 = std::chrono::steady_clock::now();
  if (!m_device.present || !m_variant || calls.empty()) {
    out.reason = "the candidate has no compiled config to run under " + tool.name;
    return out;
  }
  GpuSessionOptions o = session_options("the candidate under " + tool.name);
  o.command_timeout_ms = std::max(m_opt.run_timeout_ms, tool.command_timeout_ms);
  o.tool_argv = tool.argv;
  o.tool_binds = tool.binds;
  o.separate_buffers = tool.separate_buffers;
  auto started = start_gpu_session(o);
  if (!started) {
    out.reason = tool.name + " could not start: " + started.error().what();
    return out;
  }
  std::unique_ptr<GpuSession> s = std::move(*started);
  if (!s->device.value("present", false)) {
    out.reason = "the GPU runner under " + tool.name + " did not start: " +
                 s->device.value("reason", std::string("no device"));
    return out;
  }
  for (const auto& call : calls) {
    if (call.config >= m_cubin_data.size()) continue;
    if (auto wrote = util::write_file_atomic(s->job / module_file(call.config), m_cubin_data[call.config]); !wrote) {
      out.reason = wrote.error().what();
      return out;
    }
  }
  Borrowed saved{m_verdict, m_decided, m_arena, m_runner, m_loaded};
  m_arena = &*s->arena;
  m_runner = s->runner.get();
  m_loaded.reset();
  for (const auto& call : calls) {
    if (call.config >= m_cubin_data.size() || !call.workload) continue;
    const core::Workload& w = *call.workload;
    core::WorkloadResult scratch;
    WorkloadHarness h(m_spec, *m_variant, *m_reference, *m_arena, *m_runner, w, scratch);
    h.skip_reference(true);
    h.place_at_least_alignment(!call.bench);  // as validation placed it
    if (auto f = h.prepare()) {
      out.call = f;
    } else if (!use_config(call.config) || !send_dims(call.config, w)) {
      out.call = CheckFailure{m_verdict.status, m_verdict.reason};
    } else {
      h.load_inputs(m_spec.distributions[0], m_seeds.next());
      out.call = h.run_unverified(m_seeds.next());
    }
    if (out.call) break;  // the runner may be gone: the tool's report says the rest
  }
  m_verdict = std::move(saved.verdict);
  m_decided = saved.decided;
  m_arena = saved.arena;
  m_runner = saved.runner;
  m_loaded = saved.loaded;
  // The runner's end ends the tool, which then writes its report.
  std::string stderr_text = s->runner->finish();
  // Not followed if the sandbox left a link there, and bounded.
  auto report = util::read_file_nofollow(s->job / tool.report_file, k_max_report_bytes);
  out.ms = util::ms_since(t0);
  if (!report || report->empty()) {
    out.reason = fmt::format("{} left no report{}", tool.name,
                             stderr_text.empty() ? "" : ": " + stderr_text.substr(0, 600));
    return out;
  }
  out.report = std::move(*report);
  out.ran = true;
  return out;
}

}  // namespace kwb::eval
