#include "core/verdict.hpp"

#include <cmath>

namespace kwb::core {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::accepted: return "accepted";
    case Status::incorrect: return "incorrect";
    case Status::compile_error: return "compile_error";
    case Status::rejected: return "rejected";
    case Status::sandbox_violation: return "sandbox_violation";
    case Status::time_limit: return "time_limit";
    case Status::memory_limit: return "memory_limit";
    case Status::output_limit: return "output_limit";
    case Status::crashed: return "crashed";
    case Status::no_device: return "no_device";
    case Status::error: return "error";
  }
  return "error";
}

namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json number_or_text(double v) {
  // JSON has no NaN/Inf: write them as strings so the record survives.
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

nlohmann::json to_json(const TimeStats& t) {
  return {{"median_ns", t.median_ns}, {"mean_ns", t.mean_ns}, {"min_ns", t.min_ns},
          {"max_ns", t.max_ns}, {"p10_ns", t.p10_ns}, {"p90_ns", t.p90_ns},
          {"stdev_pct", t.stdev_pct}, {"mean_stderr_pct", t.mean_stderr_pct},
          {"samples", t.samples}, {"discarded", t.discarded}, {"stop_reason", t.stop_reason},
          {"clock", t.clock}, {"cold", t.cold}, {"launch_overhead_ns", t.launch_overhead_ns},
          {"sm_clock_min_mhz", t.sm_clock_min_mhz}, {"sm_clock_max_mhz", t.sm_clock_max_mhz},
          {"timed_ms", t.timed_ms}, {"interleaved", t.interleaved}};
}

nlohmann::json to_json(const Comparison& c) {
  return {{"label", c.label}, {"ratio", c.ratio}, {"low", c.low}, {"high", c.high},
          {"confidence", c.confidence}, {"blocks", c.blocks}, {"samples", c.samples},
          {"candidate_ns", c.candidate_ns}, {"incumbent_ns", c.incumbent_ns}, {"ms", c.ms},
          {"stop_reason", c.stop_reason}};
}

nlohmann::json to_json(const WorkloadResult& w) {
  nlohmann::json j = {{"name", w.name}, {"kind", w.kind}, {"drawn", w.drawn}, {"reference", w.reference},
                      {"params", w.params},
                      {"correct", w.correct}, {"checks", w.checks},
                      {"max_abs_err", number_or_text(w.max_abs_err)},
                      {"max_rel_err", number_or_text(w.max_rel_err)},
                      {"mismatches", w.mismatches}};
  if (w.first_mismatch)
    j["first_mismatch"] = {{"tensor", w.first_mismatch->tensor}, {"index", w.first_mismatch->index},
                           {"got", number_or_text(w.first_mismatch->got)},
                           {"expected", number_or_text(w.first_mismatch->expected)}};
  else
    j["first_mismatch"] = nullptr;
  j["time"] = w.time ? to_json(*w.time) : nlohmann::json(nullptr);
  if (w.time_graph) j["time_graph"] = to_json(*w.time_graph);  // absent where not timed by graph replay
  if (w.roofline)
    j["roofline"] = {{"bytes", w.roofline->bytes}, {"flops", w.roofline->flops},
                     {"pct_bw", opt(w.roofline->pct_bw)}, {"pct_flops", opt(w.roofline->pct_flops)},
                     {"pct_bw_sheet", opt(w.roofline->pct_bw_sheet)},
                     {"pct_flops_sheet", opt(w.roofline->pct_flops_sheet)}};
  else
    j["roofline"] = nullptr;
  j["vs_incumbent"] = w.vs_incumbent ? nlohmann::json(*w.vs_incumbent) : nlohmann::json(nullptr);
  j["vs_baseline"] = w.vs_baseline ? nlohmann::json(*w.vs_baseline) : nlohmann::json(nullptr);
  j["comparison"] = w.comparison ? to_json(*w.comparison) : nlohmann::json(nullptr);
  j["feedback"] = w.feedback ? to_json(*w.feedback) : nlohmann::json(nullptr);
  if (!w.config_times.empty()) {
    j["config_times"] = nlohmann::json::array();
    for (const auto& c : w.config_times)
      j["config_times"].push_back({{"config", c.config}, {"median_ns", c.median_ns}, {"vs_winner", c.vs_winner},
                                   {"low", c.low}, {"high", c.high}, {"label", c.label}});
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const Verdict& v) {
  nlohmann::json j = {{"schema", "kwb.verdict.v1"}, {"candidate", v.candidate}, {"op", v.op},
                      {"spec_version", v.spec_version}, {"variant", v.variant}, {"backend", v.backend},
                      {"status", status_name(v.status)}, {"reason", v.reason},
                      {"device", v.device}, {"toolchain", v.toolchain}};
  j["diagnostics"] = nlohmann::json::array();
  for (const auto& d : v.diagnostics)
    j["diagnostics"].push_back({{"file", d.file}, {"line", d.line}, {"col", d.col},
                                {"severity", d.severity}, {"message", d.message},
                                {"rule", d.rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.rule)}});
  j["workloads"] = nlohmann::json::array();
  for (const auto& w : v.workloads) j["workloads"].push_back(to_json(w));
  j["compiler_facts"] = nlohmann::json::array();
  for (const auto& f : v.compiler_facts) j["compiler_facts"].push_back(to_json(f));
  j["profile"] = v.profile ? to_json(*v.profile) : nlohmann::json(nullptr);
  j["sanitizer"] = v.sanitizer ? to_json(*v.sanitizer) : nlohmann::json(nullptr);
  j["summary"] = {{"geomean_vs_incumbent", opt(v.summary.geomean_vs_incumbent)},
                  {"geomean_vs_baseline", opt(v.summary.geomean_vs_baseline)},
                  {"beats_incumbent", opt(v.summary.beats_incumbent)},
                  {"incumbent", v.summary.incumbent
                                    ? nlohmann::json{{"kernel", v.summary.incumbent->kernel},
                                                     {"commit", v.summary.incumbent->commit},
                                                     {"source_sha256", v.summary.incumbent->source_sha256},
                                                     {"device_class", v.summary.incumbent->device_class},
                                                     {"remeasured", v.summary.incumbent->remeasured}}
                                    : nlohmann::json(nullptr)},
                  {"decision", v.summary.decision
                                   ? nlohmann::json{{"promotable", v.summary.decision->promotable},
                                                    {"reason", v.summary.decision->reason},
                                                    {"wins", v.summary.decision->wins},
                                                    {"regressions", v.summary.decision->regressions},
                                                    {"undecided", v.summary.decision->undecided}}
                                   : nlohmann::json(nullptr)},
                  {"machine", v.summary.machine
                                  ? nlohmann::json{{"load_avg_1m", v.summary.machine->load_avg_1m},
                                                   {"running_max", v.summary.machine->running_max},
                                                   {"cores", v.summary.machine->cores},
                                                   {"busy", v.summary.machine->busy},
                                                   {"detail", v.summary.machine->detail},
                                                   {"others_max", v.summary.machine->others_max},
                                                   {"others_seen", v.summary.machine->others_seen},
                                                   {"samples", v.summary.machine->samples}}
                                  : nlohmann::json(nullptr)},
                  {"resources", v.summary.resources ? to_json(*v.summary.resources) : nlohmann::json(nullptr)},
                  {"wall_ms", v.summary.wall_ms}, {"stage_ms", v.summary.stage_ms},
                  {"compile_cache", v.summary.compile_cache.empty() ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(v.summary.compile_cache)},
                  {"samples_sha256", v.summary.samples_sha256.empty() ? nlohmann::json(nullptr)
                                                                      : nlohmann::json(v.summary.samples_sha256)},
                  {"blocks_sha256", v.summary.blocks_sha256.empty() ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(v.summary.blocks_sha256)},
                  {"method", v.summary.method.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.summary.method)}};
  return j;
}

}  // namespace kwb::core
