// The candidate's components of /openapi.json: the Candidate, its Verdict (kwb.verdict.v1,
// docs/verdict.md) and the verdict's parts, and the attempts (Lineage, Attempts: docs/api.md
// "Lineage"). api/openapi_schemas.cpp holds the others.
#include <string>

#include "api/openapi_schemas.hpp"
#include "api/schema_parts.hpp"
#include "core/filters.hpp"
#include "core/timing_names.hpp"

namespace kwb::api {

namespace {

using namespace schema;

// The parts of a verdict (docs/verdict.md), as components: the SDK's types mirror them.
json time_stats_schema() {
  return obj({{"median_ns", number()}, {"mean_ns", number()}, {"min_ns", number()}, {"max_ns", number()},
              {"p10_ns", number()}, {"p90_ns", number()}, {"stdev_pct", number()},
              {"mean_stderr_pct", {{"type", "number"}, {"description", "relative standard error of the mean, %"}}},
              {"samples", integer()}, {"discarded", integer()},
              {"stop_reason", {{"type", "string"}, {"description", "converged, budget, hard_budget or max_samples"}}},
              {"clock", str()}, {"cold", boolean()}, {"launch_overhead_ns", number()},
              {"sm_clock_min_mhz", number()}, {"sm_clock_max_mhz", number()}, {"timed_ms", number()},
              {"interleaved", {{"type", "boolean"}, {"description", "timed in block pairs with the incumbent (one pass)"}}}},
             {"interleaved"});
}

json comparison_schema() {
  return obj({{"label", str_enum(core::comparison_label_names())},
              {"ratio", {{"type", "number"}, {"description", "incumbent time / candidate time (> 1: faster)"}}},
              {"low", number()}, {"high", number()},
              {"confidence", {{"type", "number"}, {"description", "of the [low, high] interval"}}},
              {"blocks", integer()}, {"samples", {{"type", "integer"}, {"description", "calls timed per side"}}},
              {"candidate_ns", number()}, {"incumbent_ns", number()}, {"ms", number()},
              {"stop_reason", {{"type", "string"}, {"description", "settled, budget or max_blocks"}}}});
}

json incumbent_ref_schema() {
  return obj({{"kernel", str()}, {"commit", str()}, {"source_sha256", str()}, {"device_class", str()},
              {"remeasured", boolean()}});
}

json decision_schema() {
  return obj({{"promotable", boolean()}, {"reason", str()}, {"wins", arr(str())}, {"regressions", arr(str())},
              {"undecided", arr(str())}});
}

// The candidate's resources beside the incumbent's (docs/verdict.md "Resources").
json resource_diff_schema() {
  json occupancy = obj({{"threads", integer()}, {"blocks_per_sm", integer()}, {"warps_per_sm", integer()},
                        {"pct", number()}, {"limited_by", str()}});
  json side = obj({{"kernel", str()}, {"config", str()}, {"registers", integer()}, {"spill_store_bytes", integer()},
                   {"spill_load_bytes", integer()}, {"static_smem_bytes", integer()},
                   {"dynamic_smem_bytes", or_null(integer())}, {"barriers", integer()},
                   {"occupancy", or_null(occupancy)}});
  json row = obj({{"workload", str()}, {"candidate", or_null(side)}, {"incumbent", or_null(side)},
                  {"losses", arr(str())}});
  json out = obj({{"rows", arr(row)}, {"losses", arr(str())}});
  out["description"] = "per timed bench workload and kernel, each side under the config it times it with; losses: "
                       "occupancy down (its limiter named), spills up";
  return out;
}

json verdict_summary_schema() {
  json incumbent = incumbent_ref_schema();
  json decision = decision_schema();
  json machine = obj({{"load_avg_1m", number()}, {"running_max", integer()}, {"cores", integer()}, {"busy", boolean()},
                      {"detail", str()}, {"others_max", integer()}, {"others_seen", integer()}, {"samples", integer()}},
                     {"others_max", "others_seen", "samples"});  // absent from verdicts stored before they were
  return obj({{"geomean_vs_incumbent", or_null(number())}, {"geomean_vs_baseline", or_null(number())},
              {"beats_incumbent", or_null(boolean())}, {"incumbent", or_null(incumbent)},
              {"decision", or_null(decision)}, {"machine", or_null(machine)},
              {"resources", or_null(ref("ResourceDiff"))},
              {"wall_ms", number()}, {"stage_ms", map_of(number())}, {"compile_cache", or_null(str())},
              {"samples_sha256", or_null(str())}, {"blocks_sha256", or_null(str())},
              {"method", {{"type", {"string", "null"}},
                          {"description", "the measurement method's salt its times were measured with"}}}},
             {"samples_sha256", "blocks_sha256", "method", "resources"});  // resources: absent before issue 34
}

json verdict_schema() {
  json diagnostic = obj({{"file", str()}, {"line", integer()}, {"col", integer()}, {"severity", str()}, {"message", str()},
                         {"rule", or_null(str())}});
  json first_mismatch = obj({{"tensor", str()}, {"index", arr(integer())}, {"got", number_or_text()},
                             {"expected", number_or_text()}});
  json roofline = obj({{"bytes", number()}, {"flops", number()}, {"pct_bw", or_null(number())},
                       {"pct_flops", or_null(number())}, {"pct_bw_sheet", or_null(number())},
                       {"pct_flops_sheet", or_null(number())}});
  json workload = obj({{"name", str()},
                       {"kind", str_enum({"test", "bench"})},
                       {"drawn", boolean()},
                       {"reference", str()},
                       {"params", map_of(integer())},
                       {"correct", boolean()},
                       {"checks", integer()},
                       {"max_abs_err", number_or_text()},
                       {"max_rel_err", number_or_text()},
                       {"mismatches", integer()},
                       {"first_mismatch", or_null(first_mismatch)},
                       {"time", or_null(ref("TimeStats"))},
                       {"time_graph", ref("TimeStats")},  // launch-bound CUDA bench workloads (docs/cuda.md "CUDA graphs")
                       {"roofline", or_null(roofline)},
                       {"vs_incumbent", or_null(number())},
                       {"vs_baseline", or_null(number())},
                       {"comparison", or_null(ref("Comparison"))},
                       {"feedback", or_null({{"type", "object"}, {"description", "bench, timed: config, intensity, roofline[], profile[] (Nsight Compute, when asked: docs/profiles.md) (docs/verdict.md \"Feedback\")"}})},
                       {"config_times",
                        {{"type", "array"},
                         {"description", "bench, several tunable configs: each timed round-robin, the winner chosen "
                                         "(docs/cuda.md \"Choosing a config\")"},
                         {"items", obj({{"config", str()}, {"median_ns", number()}, {"vs_winner", number()},
                                        {"low", number()}, {"high", number()},
                                        {"label", str_enum(core::config_label_names())}})}}}},
                      {"reference", "feedback", "config_times", "time_graph"});  // verdicts stored before issue 19 have no feedback
  return obj({{"schema", {{"const", "kwb.verdict.v1"}}},
              {"candidate", str()},
              {"op", str()},
              {"spec_version", integer()},
              {"variant", str()},
              {"backend", str()},
              {"status", str_enum(core::verdict_statuses())},
              {"reason", str()},
              {"device", str()},
              {"toolchain", str()},
              {"diagnostics", arr(diagnostic)},
              {"workloads", arr(workload)},
              {"compiler_facts", arr({{"type", "object"}, {"description", "cuda forms, per config: kernels[] with registers, spills, shared memory, occupancy[], instructions (PTX), sass (SASS mix), runner; sass_sha256/sass_tool/sass_note (docs/verdict.md \"Compiler facts\")"}})},
              {"profile", or_null(obj({{"status", str_enum({"measured", "failed", "no_device", "not_applicable",
                                                            "skipped", "unavailable"})},
                                       {"reason", str()},
                                       {"ms", number()},
                                       {"report_sha256", or_null(str())}},
                                      {"ms", "report_sha256"}))},  // verdicts before profile passes had neither
              {"sanitizer",
               or_null(obj({{"status", str_enum({"clean", "findings", "failed", "unavailable"})},
                            {"reason", str()},
                            {"workload", str()},
                            {"config", str()},
                            {"ms", number()},
                            {"runs", arr({{"type", "object"},
                                          {"description", "per tool: tool, status, error_count, warning_count, "
                                                          "findings[], reason (docs/profiles.md \"Sanitizer\")"}})}}))},
              {"summary", ref("VerdictSummary")}},
             {"compiler_facts", "profile", "sanitizer"});  // verdicts stored before issue 19 have neither
}

json candidate_schema() {
  json decision = obj({{"decision", str_enum({"promoted", "rejected"})},
                       {"reason", str()},
                       {"commit", or_null(str())},
                       {"decided_at", str()}});
  json ci = obj({{"outcome", {{"type", "string"}, {"description", "promoted, regressed, no_longer_wins, conflict, refused or error"}}},
                 {"reason", str()},
                 {"commit", or_null(str())},
                 {"at", str()}});
  // The decision part (docs/library.md "Verdict first, decision second"); its fields once done
  // (GET /v1/candidates/{id} only; they are in the verdict too).
  json comparison = obj({{"state", str_enum({"none", "pending", "done"})},
                         {"promotable", boolean()},
                         {"reason", str()},
                         {"note", str()},
                         {"incumbent", or_null(incumbent_ref_schema())},
                         {"decision", or_null(decision_schema())},
                         {"geomean_vs_incumbent", or_null(number_or_text())},
                         {"beats_incumbent", or_null(boolean())},
                         {"ms", or_null(number())},
                         {"failure", or_null(obj({{"status", str()}, {"reason", str()}}))},
                         {"workloads", arr({{"type", "object"}})},
                         {"resources", or_null(ref("ResourceDiff"))}},
                        {"promotable", "reason", "note", "incumbent", "decision", "geomean_vs_incumbent",
                         "beats_incumbent", "ms", "failure", "workloads", "resources"});
  comparison["description"] = "the comparison with the incumbent, which follows the verdict: none (none applies), "
                              "pending (running), done";
  return obj({{"id", {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}}},
              {"op", str()},
              {"variant", {{"type", "string"}, {"description", "as requested; \"\" when inferred (the verdict has the resolved one)"}}},
              {"backend", str_enum(core::backend_names())},
              {"state", str_enum(core::candidate_states())},
              {"status", or_null(str_enum(core::verdict_statuses()))},
              {"source_name", str()},
              {"source_sha256", str()},
              {"flags", arr(str())},
              {"bench", {{"type", "array"}, {"items", str()}, {"description", "the bench workloads it was timed on; [] = all"}}},
              {"device_class", {{"type", json::array({"string", "null"})},
                                {"description", "the device class asked for; on the Slurm executor, else the class of "
                                                "the node that evaluated it; null: none asked (local)"}}},
              {"profile", {{"type", "boolean"}, {"description", "submitted with \"profile\": true (verdict.profile)"}}},
              {"note", str()},
              {"parent", or_null(str())},
              {"attempts", integer()},
              {"cancel_requested", boolean()},
              {"mine", {{"type", "boolean"}, {"description", "submitted by the calling token (its owner may cancel it)"}}},
              {"created_at", str()},
              {"updated_at", str()},
              {"finished_at", or_null(str())},
              {"links", links()},
              {"verdict", or_null(ref("Verdict"))},
              {"comparison", comparison},
              {"decision", {{"description", "GET /v1/candidates/{id} only: a reviewer's or CI's decision"},
                            {"anyOf", json::array({decision, type("null")})}}},
              {"ci", {{"description", "GET /v1/candidates/{id} only: the last kwb ci promote outcome"},
                      {"anyOf", json::array({ci, type("null")})}}}},
             {"verdict", "decision", "ci"});
}

// One attempt of a tree (GET /v1/candidates/{id}/lineage, GET /v1/attempts): what an agent needs
// to remember of it, and its children (the attempts whose parent it is), oldest first.
json attempt_node_schema() {
  json s = obj({{"id", {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}}},
                {"parent", {{"type", json::array({"string", "null"})},
                            {"description", "the candidate it improves on (as submitted); a node whose parent is not "
                                            "in the answer is a root"}}},
                {"op", str()},
                {"backend", str_enum(core::backend_names())},
                {"created_at", str()},
                {"note", {{"type", "string"}, {"description", "the submission's note"}}},
                {"state", str_enum(core::candidate_states())},
                {"status", or_null(str_enum(core::verdict_statuses()))},
                {"reason", {{"type", "string"}, {"description", "the first line of the verdict's reason (\"\" until done)"}}},
                {"geomean_vs_incumbent", {{"type", json::array({"number", "null"})},
                                          {"description", "the verdict's speed-up against the incumbent (> 1: faster); "
                                                          "null: not compared"}}},
                {"comparison", {{"type", "string"}, {"enum", {"none", "pending", "done"}},
                                {"description", "the comparison with the incumbent that follows the verdict"}}},
                {"promotable", {{"type", json::array({"boolean", "null"})},
                                {"description", "the decision's, once there is one"}}},
                {"best", {{"type", "boolean"}, {"description", "the verified best of the answer (its `best`)"}}},
                {"latest", {{"type", "boolean"}, {"description", "the newest of the answer (its `latest`)"}}},
                {"children", arr(ref("AttemptNode"))}});
  return s;
}

// What both routes answer besides their own fields: the forest and its markers.
json attempt_forest_schema(json extra) {
  json props = {{"count", {{"type", "integer"}, {"description", "nodes in this answer"}}},
                {"total", {{"type", "integer"}, {"description", "nodes there are, whatever the limit"}}},
                {"limit", integer()},
                {"truncated", {{"type", "boolean"}, {"description", "total > count: the newest `limit` are here"}}},
                {"best", {{"type", json::array({"string", "null"})},
                          {"description", "the verified best: an accepted attempt, a promotable one first, then the "
                                          "fastest against the incumbent, then the earliest; null when none was accepted"}}},
                {"latest", {{"type", json::array({"string", "null"})}, {"description", "the newest attempt"}}},
                {"roots", {{"type", "array"}, {"items", ref("AttemptNode")},
                           {"description", "the trees, oldest first: nodes whose parent is not in the answer"}}}};
  props.update(extra);
  return obj(props);
}

}  // namespace

nlohmann::json candidate_schemas() {
  return {{"Verdict", verdict_schema()},
          {"VerdictSummary", verdict_summary_schema()},
          {"TimeStats", time_stats_schema()},
          {"Comparison", comparison_schema()},
          {"ResourceDiff", resource_diff_schema()},
          {"Candidate", candidate_schema()},
          {"AttemptNode", attempt_node_schema()},
          {"Lineage", attempt_forest_schema({{"id", {{"type", "string"}, {"description", "the candidate asked about"}}}})},
          {"Attempts", attempt_forest_schema({{"op", str()}})}};
}

}  // namespace kwb::api
