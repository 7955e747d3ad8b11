#include "api/openapi_schemas.hpp"

#include <string>

#include "api/schema_parts.hpp"
#include "core/filters.hpp"

namespace kwb::api {

namespace {

using namespace schema;

// Per bench workload: the candidate's median, its ± (relative standard error of the mean, %) and
// sample count, and the interleaved comparison with the incumbent where there was one.
json workload_evidence_schema() {
  return obj({{"workload", str()}, {"params", map_of(integer())}, {"median_ns", number()},
              {"stderr_pct", {{"type", "number"}, {"description", "± of the median's timing: relative standard error "
                                                                  "of the mean, %"}}},
              {"samples", integer()}, {"comparison", or_null(ref("Comparison"))}});
}

// A candidate as the leaderboard and the review list show it, with `extra` properties.
json review_row_schema(json extra) {
  json props = {{"id", str()}, {"variant", str()}, {"backend", str()}, {"device", str()},
                {"geomean_vs_incumbent", or_null(number())}, {"beats_incumbent", or_null(boolean())},
                {"note", str()}, {"finished_at", str()},
                {"author", {{"type", json::array({"string", "null"})}, {"description", "the submitting token's name"}}},
                {"source_sha256", str()},
                {"bench", {{"type", "array"}, {"items", str()},
                           {"description", "the bench workloads it was timed on when submitted with a subset"}}},
                {"bench_subset", boolean()},
                {"workloads", arr(ref("WorkloadEvidence"))},
                {"comparisons", arr(obj({{"workload", str()}, {"label", str()}, {"ratio", number()}, {"low", number()},
                                         {"high", number()}, {"blocks", integer()}, {"samples", integer()}}))},
                {"promotable", or_null(boolean())},
                {"promotable_reason", or_null(str())}};
  props.update(extra);
  return obj(props);
}

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
                         {"description", "time only these bench workloads (not promotable)"}}},
              {"device_class", {{"type", "string"},
                                {"description", "evaluate on a device of this class (one of GET /v1/devices' "
                                                "device_classes, of the candidate's kind); absent: any"}}},
              {"profile", {{"type", "boolean"},
                           {"description", "ask for a profile (Nsight Compute) of the bench workloads; the verdict's "
                                           "profile says what came of it (no_device without a GPU)"}}}}}};
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
  // A spec's GPU reference (docs/specs.md "GPU references"): the plan lines per variant.
  json gpu_reference = obj({{"file", str()}, {"launch", map_of(arr(str()))}, {"workloads", arr(str())}, {"note", str()}},
                           {"workloads", "note"});
  // The model-op fields (docs/specs.md "Fields for model ops"): optional tensors, set outputs,
  // scalars and the workloads' scalar values.
  json tensor = obj({{"name", str()},
                     {"role", str_enum({"in", "out", "inout"})},
                     {"shape", arr(str())},
                     {"finite", boolean()},
                     {"optional", boolean()},
                     {"set", obj({{"of", str()}, {"values", str()}}, {"values"})}},
                    {"finite", "optional", "set"});
  json variant = obj({{"name", str()},
                      {"entry", str()},
                      {"dtypes", map_of(str())},
                      {"tolerance", map_of({{"type", "object"}})},
                      {"roofline", obj({{"bytes", str()}, {"flops", str()}})}});
  json workload = obj({{"name", str()}, {"params", map_of(integer())}, {"scalars", map_of(number())}, {"label", str()},
                       {"backends", arr(str())}},
                      {"scalars", "label", "backends"});
  json s = obj({{"op", str()},
                {"version", integer()},
                {"summary", str()},
                {"params", arr(str())},
                {"scalars", arr(obj({{"name", str()}, {"value", number()}}, {"value"}))},
                {"tensors", arr(tensor)},
                {"variants", arr(variant)},
                {"distributions", arr(obj({{"name", str()}, {"note", str()}, {"tensors", map_of({{"type", "object"}})}}))},
                {"workloads", obj({{"test", arr(workload)}, {"bench", arr(workload)}})},
                {"deterministic", boolean()},
                {"alignment", integer()},
                {"baselines", arr({{"type", "object"}})},
                {"shapes", {{"type", "object"}}},
                {"gpu_reference", gpu_reference},
                {"contract", {{"description", "per variant, then backend (cpu, cuda, cuda-launcher): what a candidate "
                                              "implements and a template to start from (docs/specs.md \"Templates\")"},
                              {"type", "object"},
                              {"additionalProperties", map_of(ref("BackendContract"))}}}},
               {"scalars", "baselines", "shapes", "gpu_reference", "alignment"});
  return s;
}

json event_schema() {
  return obj({{"id", integer()},
              {"at", str()},
              {"kind", str_enum({"state", "stage", "progress", "verdict", "comparison", "decision", "ci"})},
              {"data", {{"type", "object"},
                        {"description", "state: {state, attempt?, detail?, lane?, comparison? (with done: pending, "
                                        "none or done)}; stage: {stage, finished, detail?}; "
                                        "progress: {stage, workload, kind, params, samples, config?, index?, count?} or, in the "
                                        "decide stage, {stage, detail}; "
                                        "verdict: {status, reason, comparison}; comparison (the decision against the "
                                        "incumbent, after a verdict whose comparison was pending): {state, promotable, "
                                        "reason, geomean_vs_incumbent, failure}; decision (a review): {decision, reason, "
                                        "commit}; ci: {outcome, reason, commit}"}}}});
}

json commit_entry() { return obj({{"commit", str()}, {"summary", str()}, {"time", json::object()}, {"trailers", {{"type", "object"}}}}); }

}  // namespace

json openapi_schemas() {
  json token = obj({{"id", integer()}, {"name", str()}, {"role", str_enum({"agent", "reviewer", "admin"})},
                    {"created_at", str()}, {"revoked", boolean()}});
  json device = obj({{"id", str()}, {"kind", str()}, {"name", str()}, {"copy_bytes_per_s", number()},
                     {"flops_per_s", or_null(number())}, {"calibration", json::object()}, {"calibrated_at", str()},
                     {"device_class", or_null(str())}, {"partition", str()}, {"node", str()}, {"reported_at", str()}},
                    {"device_class", "partition", "node", "reported_at"});
  json gpu = obj({{"lane", str()}, {"ordinal", integer()}, {"pci_bus_id", str()}, {"uuid", str()}, {"name", str()},
                  {"device_id", {{"type", "string"},
                                 {"description", "the id of its calibration in devices[] (shared by its lanes); \"\" "
                                                 "for a GPU that failed before it was identified"}}},
                  {"device_class", {{"type", "string"},
                                    {"deprecated", true},
                                    {"description", "deprecated: the same value as device_id (read device_id; a "
                                                    "device class is device_classes[].device_class, e.g. cuda-sm_90)"}}},
                  {"status", str_enum({"ready", "unusable", "unused"})},
                  {"reason", or_null(str())},
                  {"candidate", {{"type", json::array({"string", "null"})}, {"description", "on the GPU now (the first of candidates)"}}},
                  {"candidates", {{"type", "array"}, {"items", str()}, {"description", "every candidate on the GPU's lane now, up to --gpu-lane-depth"}}},
                  {"finished", integer()}});
  json gpu_health = obj({{"lanes", integer()}, {"unusable", arr(obj({{"lane", str()}, {"reason", str()}}))}});
  json queue = obj({{"queued", integer()}, {"waiting_for_device", integer()}, {"compiling", integer()},
                    {"on_device", integer()}, {"finished", integer()}, {"unwritten_verdicts", integer()}});
  json storage = obj({{"free_bytes", or_null(integer())}, {"reserve_bytes", integer()}, {"problems", arr(str())}},
                     {"free_bytes", "reserve_bytes"});
  json dispatch_config = obj({{"workload", str()}, {"params", map_of(integer())}, {"tune", map_of(integer())},
                              {"median_ns", or_null(number())}});
  json library_entry = obj({{"op", str()}, {"variant", str()}, {"backend", str()}, {"device_class", str()},
                            {"kernel", str()}, {"entry", str()}, {"candidate", json::object()},
                            {"configs", arr(dispatch_config)},
                            {"spec_version", {{"type", json::array({"integer", "null"})},
                                              {"description", "the spec version it was accepted under (null: seeded)"}}},
                            {"current_spec_version", or_null(integer())},
                            {"source", {{"type", json::array({"string", "null"})},
                                        {"description", "GET /v1/library/{op} only: the kernel file at the head commit"}}},
                            {"meta", {{"description", "GET /v1/library/{op} only: its <name>.json"}}},
                            {"region", {{"type", "object"},
                                        {"additionalProperties", {{"type", "array"}, {"minItems", 2}, {"maxItems", 2},
                                                                  {"items", integer()}}},
                                        {"description", "the params it serves, closed ranges (absent: every one; "
                                                        "docs/library.md \"Shape regions\")"}}}},
                           {"device_class", "entry", "candidate", "configs", "spec_version", "current_spec_version",
                            "source", "meta", "region"});
  json diff_row = obj({{"workload", str()}, {"params", map_of(integer())}, {"candidate_ns", or_null(number())},
                       {"incumbent_ns", or_null(number())}, {"vs_incumbent", or_null(number())},
                       {"samples", integer()}, {"stderr_pct", number()}, {"comparison", ref("Comparison")}},
                      {"comparison"});
  json out = {
      {"Error", error_schema()},
      {"Submit", submit_schema()},
      {"AddSpec", add_spec_schema()},
      {"Health", obj({{"status", str_enum({"ok", "degraded"})}, {"version", str()}, {"uptime_s", number()},
                      {"auth", boolean()}, {"backends", arr(str())}, {"storage", storage}, {"gpus", gpu_health},
                      {"queue", queue}})},
      {"Devices", obj({{"executor", str_enum({"local", "slurm"})},
                       {"devices", {{"description", "every device with its calibration: local, this machine's; slurm, "
                                                    "those the workers reported (with device_class, partition, node)"},
                                    {"type", "array"}, {"items", device}}},
                       {"device_classes",
                        {{"description", "the classes a submission's device_class may name, with their devices"},
                         {"type", "array"},
                         {"items", obj({{"device_class", str()}, {"kind", str_enum({"cpu", "cuda"})},
                                        {"partition", or_null(str())}, {"devices", arr(str())}})}}},
                       {"gpus", arr(gpu)}})},
      {"Whoami", obj({{"name", str()}, {"role", str_enum({"agent", "reviewer", "admin"})},
                      {"token_id", {{"type", json::array({"integer", "null"})}, {"description", "null under --no-auth"}}},
                      {"auth", {{"type", "boolean"}, {"description", "false: a --no-auth daemon (every caller is admin)"}}}})},
      {"BackendContract", backend_contract()},
      {"Spec", spec_schema()},
      {"SpecList", obj({{"specs", arr(ref("Spec"))}})},
      {"SpecAdded", obj({{"status", str_enum({"added", "unchanged"})}, {"op", str()}, {"version", integer()},
                         {"digest", str()}, {"commit", or_null(str())}, {"replaces", or_null(str())}, {"spec", ref("Spec")}},
                        {"commit", "replaces"})},
      {"Rules", obj({{"rules", arr(obj({{"id", str()}, {"severity", str()}, {"summary", str()}}))}, {"version", str()}})},
      {"SubmitReply", obj({{"id", str()}, {"state", str()}, {"links", links()}})},
      {"CandidateList", obj({{"items", arr(ref("Candidate"))}, {"next", or_null(str())}})},
      {"Event", event_schema()},
      {"EventPage", obj({{"after", integer()}, {"done", boolean()}, {"events", arr(ref("Event"))}})},
      {"ProfileReply", obj({{"id", str()}, {"parent", str()}, {"state", str()}, {"links", links()}})},
      {"CancelReply", obj({{"id", str()}, {"state", str_enum(core::candidate_states())}, {"detail", str()}})},
      {"Promoted", obj({{"id", str()}, {"decision", {{"const", "promoted"}}}, {"commit", str()}, {"kernel", str()},
                        {"speedup", or_null(number())}, {"recovered", boolean()}},
                       {"speedup", "recovered"})},
      {"RejectBody", {{"type", "object"}, {"required", {"reason"}}, {"additionalProperties", false},
                      {"properties", {{"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4096}}}}}}},
      {"Rejected", obj({{"id", str()}, {"decision", {{"const", "rejected"}}}, {"reason", str()}})},
      {"Diff", obj({{"id", str()}, {"op", str()}, {"variant", str()}, {"backend", str()}, {"status", str()},
                    {"author", or_null(str())}, {"source_sha256", str()}, {"bench", arr(str())},
                    {"bench_subset", boolean()},
                    {"same_source", arr(obj({{"id", str()}, {"op", str()}, {"state", str()}, {"status", or_null(str())}}))},
                    {"incumbent", or_null({{"type", "object"}})}, {"compared_with", or_null({{"type", "object"}})},
                    {"beats_incumbent", or_null(boolean())}, {"geomean_vs_incumbent", or_null(number())},
                    {"decision", or_null(str())}, {"machine", or_null({{"type", "object"}})},
                    {"workloads", arr(diff_row)}, {"diff", {{"type", "string"}, {"description", "unified diff"}}},
                    {"resources", or_null(ref("ResourceDiff"))}})},
      {"WorkloadEvidence", workload_evidence_schema()},
      {"Leaderboard",
       obj({{"op", str()},
            {"distinct_sources", integer()},
            {"total", {{"type", "integer"}, {"description", "rows of the filtered leaderboard, whatever the page"}}},
            {"offset", integer()},
            {"limit", integer()},
            {"next", {{"type", json::array({"string", "null"})}, {"description", "the path of the next page; null on the last"}}},
            {"candidates", arr(review_row_schema({{"decision", or_null(str())},
                                           {"same_source_as",
                                            {{"type", json::array({"string", "null"})},
                                             {"description", "the first (fastest) candidate listed with exactly this "
                                                             "source; null for that one"}}}}))}})},
      {"ReviewQueue", obj({{"pending", {{"type", "integer"}, {"description", "winners waiting, beyond the limit too"}}},
                           {"candidates", arr(review_row_schema({{"op", str()},
                                                          {"needs_reviewer",
                                                           {{"type", "boolean"},
                                                            {"description", "a cuda-launcher: kwb ci promote leaves it "
                                                                            "to a person"}}}}))}})},
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
  out.update(candidate_schemas());  // Candidate, Verdict and its parts, Lineage, Attempts
  out.update(library_report_schemas());
  return out;
}

}  // namespace kwb::api
