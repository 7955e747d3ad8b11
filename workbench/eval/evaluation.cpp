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

core::Verdict run_to_verdict(Evaluation& e) {
  (void)(e.analyze() && e.compile() && e.validate() && e.benchmark() && e.decide());
  return e.verdict();
}

}  // namespace kwb::eval
