#include "api/openapi_schemas.hpp"

#include <algorithm>
#include <string>

#include "core/filters.hpp"

namespace kwb::api {

namespace {

using nlohmann::json;

json type(const char* t) { return {{"type", t}}; }
json str() { return type("string"); }
json integer() { return type("integer"); }
json number() { return type("number"); }
json boolean() { return type("boolean"); }
json ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }
json arr(json items) { return {{"type", "array"}, {"items", std::move(items)}}; }
json map_of(json values) { return {{"type", "object"}, {"additionalProperties", std::move(values)}}; }
json str_enum(const std::vector<std::string>& values) { return {{"type", "string"}, {"enum", values}}; }
// A value or null.
json or_null(json s) {
  if (s.contains("type") && s["type"].is_string() && !s.contains("$ref")) {
    s["type"] = json::array({s["type"], "null"});
    return s;
  }
  return {{"anyOf", json::array({std::move(s), type("null")})}};
}
// An object with these properties, all required unless listed in `optional`; more properties may
// come in later versions (clients should ignore what they do not know).
json obj(json props, std::vector<std::string> optional = {}) {
  json required = json::array();
  for (auto& [k, v] : props.items())
    if (std::find(optional.begin(), optional.end(), k) == optional.end()) required.push_back(k);
  return {{"type", "object"}, {"properties", std::move(props)}, {"required", required}};
}
// Numbers JSON cannot hold (NaN, Inf) are written as strings in verdicts.
json number_or_text() { return {{"anyOf", json::array({number(), str_enum({"nan", "inf", "-inf"})})}}; }

json error_schema() {
  json inner = obj({{"type", {{"type", "string"}, {"description", "machine-readable kind, e.g. invalid_field, not_found"}}},
                    {"message", {{"type", "string"}, {"description", "names the field or parameter and what was expected"}}},
                    {"file", str()},
                    {"field", str()}},
                   {"file", "field"});
  return obj({{"error", inner}});
}

json submit_schema() {
  json s = {{"type", "object"},
            {"required", {"op", "source"}},
            {"additionalProperties", false},
            {"properties",
             {{"op", str()},
              {"variant", str()},
              {"backend", str_enum(core::backend_names())},
              {"source", {{"type", "string"}, {"maxLength", 262144}}},
              {"source_name", {{"type", "string"}, {"pattern", "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$"}}},
              {"flags", arr(str())},
              {"note", {{"type", "string"}, {"maxLength", 4096}}},
              {"parent", {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}}},
              {"launch", {{"oneOf", json::array({str(), arr(str())})},
                          {"description", "cuda only: the launch plan, appended to the source as kwb:launch lines"}}},
              {"tune", {{"type", "object"},
                        {"additionalProperties", {{"type", "array"}, {"minItems", 1}, {"items", integer()}}},
                        {"description", "cuda only: tunables, e.g. {\"BLOCK\": [128, 256]}"}}},
              {"bench", {{"type", "array"}, {"items", str()},
                         {"description", "time only these bench workloads (not promotable)"}}}}}};
  return s;
}

json add_spec_schema() {
  return {{"type", "object"},
          {"required", {"files"}},
          {"additionalProperties", false},
          {"properties",
           {{"files",
             {{"type", "object"},
              {"description", "The spec folder: file name -> content. spec.json and reference.cpp are required; "
                              "reference.cu, reference* sources, the baselines' files, templates "
                              "(template.<variant>.cpp|.cu|.launcher.cu) and README.md may come too. "
                              "At most 16 files, 256 KiB each, 768 KiB in all."},
              {"minProperties", 2},
              {"maxProperties", 16},
              {"propertyNames", {{"pattern", "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"}}},
              {"additionalProperties", {{"type", "string"}, {"maxLength", 262144}}}}}}}};
}

json links() { return obj({{"self", str()}, {"events", str()}, {"cancel", str()}}); }

json backend_contract() {
  json tmpl = obj({{"source", {{"type", "string"}, {"description", "a candidate source to start from"}}},
                   {"complete", {{"type", "boolean"},
                                 {"description", "true: a correct kernel shipped with the spec (checked by kwb spec "
                                                 "check); false: a skeleton with the prototype, its body to write"}}},
                   {"file", or_null(str())}});
  return obj({{"prototype", {{"type", "string"}, {"description", "the exact C prototype, as entry-signature findings print it"}}},
              {"params", arr(obj({{"name", str()}, {"type", str()}}))},
              {"entry", {{"type", "string"}, {"description", "cpu, cuda-launcher: the symbol to define"}}},
              {"launch_args", {{"type", "string"}, {"description", "cuda: the args=(...) of a launch passing every tensor and param"}}},
              {"note", str()},
              {"template", tmpl}},
             {"entry", "launch_args", "note"});
}

json spec_schema() {
  json tensor = obj({{"name", str()}, {"role", str_enum({"in", "out", "inout"})}, {"shape", arr(str())}, {"finite", boolean()}},
                    {"finite"});
  json variant = obj({{"name", str()},
                      {"entry", str()},
                      {"dtypes", map_of(str())},
                      {"tolerance", map_of({{"type", "object"}})},
                      {"roofline", obj({{"bytes", str()}, {"flops", str()}})}});
  json workload = obj({{"name", str()}, {"params", map_of(integer())}, {"label", str()}, {"backends", arr(str())}},
                      {"label", "backends"});
  json s = obj({{"op", str()},
                {"version", integer()},
                {"summary", str()},
                {"params", arr(str())},
                {"tensors", arr(tensor)},
                {"variants", arr(variant)},
                {"distributions", arr(obj({{"name", str()}, {"note", str()}, {"tensors", map_of({{"type", "object"}})}}))},
                {"workloads", obj({{"test", arr(workload)}, {"bench", arr(workload)}})},
                {"deterministic", boolean()},
                {"baselines", arr({{"type", "object"}})},
                {"shapes", {{"type", "object"}}},
                {"contract", {{"description", "per variant, then backend (cpu, cuda, cuda-launcher): what a candidate "
                                              "implements and a template to start from (docs/specs.md \"Templates\")"},
                              {"type", "object"},
                              {"additionalProperties", map_of(ref("BackendContract"))}}}},
               {"baselines", "shapes"});
  return s;
}

json verdict_schema() {
  json diagnostic = obj({{"file", str()}, {"line", integer()}, {"col", integer()}, {"severity", str()}, {"message", str()},
                         {"rule", or_null(str())}});
  json workload = obj({{"name", str()},
                       {"kind", str_enum({"test", "bench"})},
                       {"drawn", boolean()},
                       {"params", map_of(integer())},
                       {"correct", boolean()},
                       {"checks", integer()},
                       {"max_abs_err", number_or_text()},
                       {"max_rel_err", number_or_text()},
                       {"mismatches", integer()},
                       {"first_mismatch", or_null({{"type", "object"}})},
                       {"time", or_null({{"type", "object"}, {"description", "median_ns, mean_ns, min_ns, p10_ns, p90_ns, stdev_pct, samples, ..."}})},
                       {"roofline", or_null({{"type", "object"}})},
                       {"vs_incumbent", or_null(number())},
                       {"vs_baseline", or_null(number())},
                       {"comparison", or_null({{"type", "object"}})}});
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
              {"summary", {{"type", "object"}, {"description", "geomean_vs_incumbent, beats_incumbent, decision, wall_ms, stage_ms, ..."}}}});
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
              {"note", str()},
              {"parent", or_null(str())},
              {"attempts", integer()},
              {"cancel_requested", boolean()},
              {"created_at", str()},
              {"updated_at", str()},
              {"finished_at", or_null(str())},
              {"links", links()},
              {"verdict", or_null(ref("Verdict"))},
              {"decision", {{"description", "GET /v1/candidates/{id} only: a reviewer's or CI's decision"},
                            {"anyOf", json::array({decision, type("null")})}}},
              {"ci", {{"description", "GET /v1/candidates/{id} only: the last kwb ci promote outcome"},
                      {"anyOf", json::array({ci, type("null")})}}}},
             {"verdict", "decision", "ci"});
}

json event_schema() {
  return obj({{"id", integer()},
              {"at", str()},
              {"kind", str_enum({"state", "stage", "progress", "verdict", "decision", "ci"})},
              {"data", {{"type", "object"},
                        {"description", "state: {state, attempt?, detail?}; stage: {stage, finished, detail?}; "
                                        "progress: {stage, workload, kind, params, samples, config?, index?, count?}; "
                                        "verdict: {status, reason}; decision: {decision, reason, commit}; "
                                        "ci: {outcome, reason, commit}"}}}});
}

json commit_entry() { return obj({{"commit", str()}, {"summary", str()}, {"time", json::object()}, {"trailers", {{"type", "object"}}}}); }

}  // namespace

json openapi_schemas() {
  json token = obj({{"id", integer()}, {"name", str()}, {"role", str_enum({"agent", "reviewer", "admin"})},
                    {"created_at", str()}, {"revoked", boolean()}});
  json device = obj({{"id", str()}, {"kind", str()}, {"name", str()}, {"copy_bytes_per_s", number()},
                     {"flops_per_s", or_null(number())}, {"calibration", json::object()}, {"calibrated_at", str()}});
  json queue = obj({{"queued", integer()}, {"waiting_for_device", integer()}, {"compiling", integer()},
                    {"on_device", integer()}, {"finished", integer()}, {"unwritten_verdicts", integer()}});
  json storage = obj({{"free_bytes", or_null(integer())}, {"reserve_bytes", integer()}, {"problems", arr(str())}},
                     {"free_bytes", "reserve_bytes"});
  json library_entry = {{"type", "object"},
                        {"required", {"op", "variant", "backend", "kernel"}},
                        {"properties", {{"op", str()}, {"variant", str()}, {"backend", str()}, {"device_class", str()},
                                        {"kernel", str()}, {"entry", str()}, {"candidate", json::object()}, {"configs", arr({{"type", "object"}})}}}};
  return {
      {"Error", error_schema()},
      {"Submit", submit_schema()},
      {"AddSpec", add_spec_schema()},
      {"Health", obj({{"status", str_enum({"ok", "degraded"})}, {"version", str()}, {"uptime_s", number()},
                      {"auth", boolean()}, {"backends", arr(str())}, {"storage", storage}, {"queue", queue}})},
      {"Devices", obj({{"devices", arr(device)}})},
      {"BackendContract", backend_contract()},
      {"Spec", spec_schema()},
      {"SpecList", obj({{"specs", arr(ref("Spec"))}})},
      {"SpecAdded", obj({{"status", str_enum({"added", "unchanged"})}, {"op", str()}, {"version", integer()},
                         {"digest", str()}, {"commit", or_null(str())}, {"replaces", or_null(str())}, {"spec", ref("Spec")}},
                        {"commit", "replaces"})},
      {"Rules", obj({{"rules", arr(obj({{"id", str()}, {"severity", str()}, {"summary", str()}}))}, {"version", str()}})},
      {"SubmitReply", obj({{"id", str()}, {"state", str()}, {"links", links()}})},
      {"Verdict", verdict_schema()},
      {"Candidate", candidate_schema()},
      {"CandidateList", obj({{"items", arr(ref("Candidate"))}, {"next", or_null(str())}})},
      {"Event", event_schema()},
      {"EventPage", obj({{"after", integer()}, {"done", boolean()}, {"events", arr(ref("Event"))}})},
      {"CancelReply", obj({{"id", str()}, {"state", str_enum(core::candidate_states())}, {"detail", str()}})},
      {"Promoted", obj({{"id", str()}, {"decision", {{"const", "promoted"}}}, {"commit", str()}, {"kernel", str()},
                        {"speedup", or_null(number())}, {"recovered", boolean()}},
                       {"speedup", "recovered"})},
      {"RejectBody", {{"type", "object"}, {"required", {"reason"}}, {"additionalProperties", false},
                      {"properties", {{"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4096}}}}}}},
      {"Rejected", obj({{"id", str()}, {"decision", {{"const", "rejected"}}}, {"reason", str()}})},
      {"Diff", obj({{"id", str()}, {"op", str()}, {"variant", str()}, {"backend", str()}, {"status", str()},
                    {"incumbent", or_null({{"type", "object"}})}, {"compared_with", or_null({{"type", "object"}})},
                    {"beats_incumbent", or_null(boolean())}, {"geomean_vs_incumbent", or_null(number())},
                    {"decision", or_null(str())}, {"machine", or_null({{"type", "object"}})},
                    {"workloads", arr({{"type", "object"}})}, {"diff", {{"type", "string"}, {"description", "unified diff"}}}})},
      {"Leaderboard", obj({{"op", str()},
                           {"candidates", arr(obj({{"id", str()}, {"variant", str()}, {"backend", str()}, {"device", str()},
                                                   {"geomean_vs_incumbent", or_null(number())},
                                                   {"beats_incumbent", or_null(boolean())}, {"decision", or_null(str())},
                                                   {"note", str()}, {"finished_at", str()},
                                                   {"comparisons", arr({{"type", "object"}})},
                                                   {"promotable", or_null(boolean())}}))}})},
      {"Library", obj({{"commit", str()}, {"path", str()}, {"entries", arr(library_entry)}, {"op", str()},
                       {"history", arr(commit_entry())}, {"spec_history", arr(commit_entry())}},
                      {"op", "history", "spec_history"})},
      {"RetimeBody", {{"type", "object"}, {"additionalProperties", false},
                      {"properties", {{"backend", str_enum(core::backend_names())}}}}},
      {"RetimeReply", obj({{"op", str()},
                           {"candidates", arr(obj({{"id", str()}, {"kernel", str()}, {"backend", str()}, {"links", links()}}))}})},
      {"TokenCreate", {{"type", "object"}, {"required", {"role"}}, {"additionalProperties", false},
                       {"properties", {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", 64}}},
                                       {"role", str_enum({"agent", "reviewer", "admin"})}}}}},
      {"TokenCreated", obj({{"token", str()}, {"name", str()}, {"role", str()}})},
      {"TokenList", obj({{"tokens", arr(token)}})},
      {"TokenRevoked", obj({{"id", integer()}, {"name", str()}, {"role", str()}, {"revoked", boolean()}, {"detail", str()}})},
  };
}

}  // namespace kwb::api
