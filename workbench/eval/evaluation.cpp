#include "eval/evaluation.hpp"

namespace kwb::eval {

std::string_view stage_name(Stage s) {
  switch (s) {
    case Stage::analyze: return "analyze";
    case Stage::compile: return "compile";
    case Stage::validate: return "validate";
    case Stage::benchmark: return "benchmark";
    case Stage::decide: return "decide";
  }
  return "?";
}

StageEvent workload_progress(Stage stage, const core::Workload& w, bool bench, std::string config, size_t samples,
                             size_t index, size_t count) {
  return StageEvent{stage, false, "",
                    WorkloadProgress{w.name, bench ? "bench" : "test", w.params, std::move(config), samples, index, count}};
}

std::optional<std::pair<std::string, nlohmann::json>> StageEventShaper::operator()(const StageEvent& e) {
  if (e.workload) {
    const auto& w = *e.workload;
    const auto now = std::chrono::steady_clock::now();
    if (w.samples > 0 && now - m_last_samples < std::chrono::milliseconds(250)) return std::nullopt;
    if (w.samples > 0) m_last_samples = now;
    nlohmann::json data = {{"stage", stage_name(e.stage)}, {"workload", w.workload}, {"kind", w.kind},
                           {"params", w.params}, {"samples", w.samples}};
    if (!w.config.empty()) data["config"] = w.config;
    if (w.count > 0) data.update({{"index", w.index}, {"count", w.count}});
    return std::pair{std::string("progress"), data};
  }
  if (e.note) return std::pair{std::string("progress"), nlohmann::json{{"stage", stage_name(e.stage)}, {"detail", e.detail}}};
  nlohmann::json data = {{"stage", stage_name(e.stage)}, {"finished", e.finished}};
  if (!e.detail.empty()) data["detail"] = e.detail;
  return std::pair{std::string("stage"), data};
}

core::Verdict decide_stage(Evaluation& e, const Judge& judge) {
  e.report(StageEvent{Stage::decide, false, ""});
  if (!e.decide()) return e.verdict();  // decided otherwise: the verdict says how
  core::Verdict v = e.verdict();
  if (judge) judge(v);
  e.report(StageEvent{Stage::decide, true, std::string(core::status_name(v.status))});
  return v;
}

core::Verdict run_to_verdict(Evaluation& e, const Judge& judge) {
  if (!(e.analyze() && e.compile() && e.validate() && e.benchmark())) return e.verdict();
  return decide_stage(e, judge);
}

}  // namespace kwb::eval
