#include "api/openapi.hpp"
#include <optional>

#include "api/openapi_schemas.hpp"
#include "core/filters.hpp"

namespace kwb::api {

namespace {

using nlohmann::json;

json int_range(int64_t lo, int64_t hi, std::optional<int64_t> dflt = std::nullopt) {
  json s = {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}};
  if (dflt) s["default"] = *dflt;
  return s;
}

ParamDoc wait_param() {
  return {"wait", "query", int_range(0, 60, 0), "long-poll: answer as soon as there is news, or after this many seconds"};
}

ParamDoc artifact_config_param() {
  return {"config", "query", {{"type", "string"}}, "the config's label, e.g. BLOCK=256 (default: the first config)"};
}

const std::vector<RouteDoc>& table() {
  static const std::vector<RouteDoc> k = {
      {"get", "/v1/health", "", "Liveness, version, queue figures, storage health", {}, "", false,
       {{200, "OK (status degraded: storage.problems or gpus.unusable says what is wrong)", "Health", ""}}},
      {"get", "/v1/devices", "agent", "Devices and their calibrated peaks, by device class (local or the fleet's); this host's GPUs, one timing lane each", {},
       "", false, {{200, "OK", "Devices", ""}}},
      {"get", "/v1/whoami", "agent", "The calling token's name and role (what the review pages offer depends on it)", {},
       "", false, {{200, "OK", "Whoami", ""}}},
      {"get", "/v1/specs", "agent", "Every operator spec, each with its contract (prototypes and templates)", {}, "", false,
       {{200, "OK", "SpecList", ""}}},
      {"get", "/v1/specs/{op}", "agent",
       "One operator spec: tensors, params, variants, tolerances, workloads, and its contract per variant and backend "
       "(the exact C prototype and a template to start from)",
       {}, "", false, {{200, "OK", "Spec", ""}, {404, "not_found: no spec for this op", "Error", ""}}},
      {"post", "/v1/specs", "reviewer",
       "Add an op, or a new version of one: its spec folder's files are validated, committed into the library as one "
       "commit and served at once",
       {}, "AddSpec", false,
       {{201, "added", "SpecAdded", ""},
        {200, "unchanged: the library already holds exactly these files", "SpecAdded", ""},
        {409, "spec_conflict: served at this version with another meaning, or at a higher version", "Error", ""},
        {503, "no_library: this daemon runs without a library", "Error", ""}}},
      {"get", "/v1/analysis/rules", "agent", "The static-analysis rules (id, severity, summary)", {}, "", false,
       {{200, "OK", "Rules", ""}}},
      {"post", "/v1/candidates", "agent", "Submit a candidate (honours Idempotency-Key)",
       {{"Idempotency-Key", "header", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}},
         "a key per logical submission: the same key and body return the first candidate (200, Idempotent-Replay: true)"}},
       "Submit", false,
       {{202, "Accepted: queued", "SubmitReply", ""},
        {200, "Idempotent replay of an earlier submission with this key", "SubmitReply", ""},
        {422, "unknown_op, unknown_variant, unknown_workload, unsupported_backend, forbidden_flag, idempotency_conflict, "
              "unknown_device_class (the message names the known classes)",
         "Error", ""},
        {507, "insufficient_storage: the workspace's disk is full; nothing was stored", "Error", ""}}},
      {"get", "/v1/candidates", "agent", "List candidates, newest first (without verdicts)",
       {{"op", "query", {{"type", "string"}}, "only this op (unknown ops are refused with the known ones)"},
        {"state", "query", {{"type", "string"}, {"enum", core::candidate_states()}}, "only this state"},
        {"status", "query", {{"type", "string"}, {"enum", core::verdict_statuses()}}, "only this verdict status"},
        {"mine", "query", {{"type", "string"}, {"enum", {"true", "false"}}}, "true: only candidates this token submitted"},
        {"device_class", "query", {{"type", "string"}}, "only candidates of this device class"},
        {"limit", "query", int_range(1, 500, 50), "page size"},
        {"before", "query", {{"type", "integer"}, {"minimum", 1}}, "a sequence number from `next`: older candidates"}},
       "", false, {{200, "OK", "CandidateList", ""}}},
      {"get", "/v1/candidates/{id}", "agent",
       "One candidate with its verdict, its comparison with the incumbent, the review decision and the last CI "
       "outcome; ?wait=S long-polls until its verdict and decision are in (?until=verdict: the verdict alone)",
       {wait_param(),
        {"until", "query", {{"type", "string"}, {"enum", {"verdict", "decision"}}, {"default", "decision"}},
         "with ?wait: what to wait for: the verdict (stored first), or the decision that follows it too"}}, "", false, {{200, "OK", "Candidate", ""}, {404, "not_found: no such candidate", "Error", ""}}},
      {"get", "/v1/candidates/{id}/events", "agent",
       "Progress as Server-Sent Events (each `data:` line is an Event), or with ?wait=S a JSON page of events after `after`",
       {wait_param(),
        {"after", "query", {{"type", "integer"}, {"minimum", 0}}, "only events with a larger id (resume)"},
        {"Last-Event-ID", "header", {{"type", "string"}, {"pattern", "^[0-9]+$"}}, "SSE resume: only events after this id"}},
       "", false,
       {{200, "text/event-stream without ?wait; application/json (EventPage) with it", "EventPage", ""},
        {404, "not_found: no such candidate", "Error", ""}}},
      {"get", "/v1/candidates/{id}/source", "agent",
       "The candidate's source as submitted (text/plain), what its diagnostics' lines point into", {}, "", false,
       {{200, "OK", "", "text/plain"}, {404, "not_found: no such candidate", "Error", ""}}},
      {"get", "/v1/candidates/{id}/artifacts/ptx", "agent",
       "The PTX NVRTC made of a cuda-form candidate's config (?config=LABEL, default the first; the labels are the "
       "verdict's compiler_facts[].config)",
       {artifact_config_param()}, "", false,
       {{200, "OK", "", "text/plain"},
        {404, "not_found (no such candidate), no_artifact (not cuda, no verdict yet, no such config, not stored)",
         "Error", ""}}},
      {"get", "/v1/candidates/{id}/artifacts/cubin", "agent",
       "The cubin of a cuda-form candidate's config (?config=LABEL, default the first), as the runner loaded it",
       {artifact_config_param()}, "", false,
       {{200, "OK", "", "application/octet-stream"},
        {404, "not_found (no such candidate), no_artifact (not cuda, no verdict yet, no such config, not stored)",
         "Error", ""}}},
      {"get", "/v1/candidates/{id}/artifacts/sass", "agent",
       "The SASS of a cuda-form candidate's config (?config=LABEL, default the first): the toolkit's nvdisasm (or "
       "cuobjdump) run in the sandbox on its cubin",
       {artifact_config_param()}, "", false,
       {{200, "OK", "", "text/plain"},
        {501, "not_implemented: this daemon's machine has no CUDA disassembler (the message says where it looked)",
         "Error", ""},
        {404, "not_found (no such candidate), no_artifact (not cuda, no verdict yet, no such config, not stored, or the "
              "disassembler failed: the message has the compiler_facts[].sass_note)", "Error", ""}}},
      {"get", "/v1/candidates/{id}/artifacts/samples", "agent",
       "The raw samples of the candidate's timed bench workloads (kwb.samples.v1: per workload its samples in ns, in "
       "the order timed, its clock and whether it was timed interleaved with the incumbent); the verdict's "
       "summary.samples_sha256 names them",
       {}, "", false,
       {{200, "OK", "", "application/json"},
        {404, "not_found (no such candidate), no_artifact (no verdict yet, nothing timed, not stored)", "Error", ""}}},
      {"get", "/v1/candidates/{id}/artifacts/blocks", "agent",
       "The block pairs of the candidate's comparison with the incumbent (kwb.blocks.v1: per workload each pair's "
       "ratio and both sides' samples in ns); summary.blocks_sha256 names them once the decision is in",
       {}, "", false,
       {{200, "OK", "", "application/json"},
        {404, "not_found (no such candidate), no_artifact (no comparison timed, pending, or not stored)", "Error", ""}}},
      {"get", "/v1/candidates/{id}/artifacts/ncu", "agent",
       "Nsight Compute's raw reports of the candidate's profile pass (kwb.ncu.v1: per bench workload its config and "
       "ncu's CSV of the raw page); verdict.profile.report_sha256 names them",
       {}, "", false,
       {{200, "OK", "", "application/json"},
        {404, "not_found (no such candidate), no_artifact (no profile asked for, none taken: its status and reason "
              "say why, or not stored)", "Error", ""}}},
      {"post", "/v1/candidates/{id}/profile", "agent",
       "Evaluate the candidate again as a new candidate of the calling token with \"profile\": true and parent {id} "
       "(a separate pass: the first verdict stays as it was); its verdict's profile says what came of it",
       {}, "", true,
       {{202, "Accepted: queued", "ProfileReply", ""},
        {404, "not_found: no such candidate", "Error", ""},
        {422, "unsupported_backend: this daemon does not evaluate the candidate's backend", "Error", ""},
        {429, "queue_quota: too many candidates of this token in flight", "Error", ""}}},
      {"post", "/v1/candidates/{id}/cancel", "agent",
       "Cancel a queued or running candidate (its owner, a reviewer or an admin; 403 for other tokens)", {}, "", true,
       {{200, "cancelled, cancellation requested, or already done", "CancelReply", ""},
        {404, "not_found: no such candidate", "Error", ""}}},
      {"post", "/v1/candidates/{id}/promote", "reviewer",
       "Promote an accepted candidate that beats the incumbent: one library commit", {}, "", true,
       {{200, "promoted", "Promoted", ""},
        {404, "not_found", "Error", ""},
        {409, "not_promotable: the reason (cancelled, not done yet, not accepted, timed on a bench subset, does not beat "
              "the incumbent, ...), or conflict (decided already, or the library moved)", "Error", ""},
        {503, "no_library", "Error", ""}}},
      {"post", "/v1/candidates/{id}/reject", "reviewer", "Reject a candidate (a candidate is decided once)", {},
       "RejectBody", false,
       {{200, "rejected", "Rejected", ""},
        {404, "not_found", "Error", ""},
        {409, "conflict: already decided, or the library's incumbent", "Error", ""},
        {503, "no_library", "Error", ""}}},
      {"get", "/v1/candidates/{id}/diff", "agent", "Unified diff against the incumbent with the per-workload table",
       {{"format", "query", {{"type", "string"}, {"enum", {"json", "text"}}, {"default", "json"}},
         "text: the unified diff alone (text/x-diff)"}},
       "", false,
       {{200, "OK (format=text: text/x-diff)", "Diff", ""}, {404, "not_found", "Error", ""}, {503, "no_library", "Error", ""}}},
      {"get", "/v1/candidates/{id}/lineage", "agent",
       "The tree of attempts the candidate belongs to: from its root (up the parent links) every descendant, each "
       "with its note, state, status, the first line of its reason, its speed against the incumbent and whether it "
       "is promotable; the verified best and the latest are marked (docs/api.md \"Lineage\")",
       {{"limit", "query", int_range(1, 1000, 200), "at most this many nodes, the newest (truncated says so)"}},
       "", false, {{200, "OK", "Lineage", ""}, {404, "not_found: no such candidate", "Error", ""}}},
      {"get", "/v1/attempts", "agent",
       "The calling token's attempts for an op as a forest through their parent links, with the same fields as a "
       "lineage and the verified best and the latest marked",
       {{"op", "query", {{"type", "string"}}, "the op (unknown ops are refused with the known ones)", true},
        {"limit", "query", int_range(1, 500, 100), "at most this many attempts, the newest (truncated says so)"}},
       "", false,
       {{200, "OK", "Attempts", ""}, {400, "bad_parameter: no op, an unknown op or limit", "Error", ""}}},
      {"get", "/v1/leaderboard/{op}", "agent",
       "One page of the accepted candidates of an op, fastest against the incumbent first (or newest first), each "
       "naming the fastest row with the same source (same_source_as), with its per-workload evidence (median ± and "
       "samples, the comparison's interval), decision, author and bench subset; ranked by the store, so a page costs "
       "the same with 10 000 candidates",
       {{"limit", "query", int_range(1, 500, 20), "at most this many"},
        {"offset", "query", {{"type", "integer"}, {"minimum", 0}, {"default", 0}}, "skip this many rows (pagination; see next)"},
        {"sort", "query", {{"type", "string"}, {"enum", {"speedup", "newest"}}, {"default", "speedup"}},
         "speedup: best geomean against the incumbent first; newest: latest first"},
        {"decision", "query", {{"type", "string"}, {"enum", {"pending", "promoted", "rejected"}}},
         "only candidates with this review decision (pending: none yet)"},
        {"backend", "query", {{"type", "string"}, {"enum", core::backend_names()}},
         "only this backend (on one daemon, one device class per backend)"}},
       "", false,
       {{200, "OK", "Leaderboard", ""}, {400, "bad_parameter", "Error", ""}, {404, "not_found: no spec for this op", "Error", ""},
        {503, "no_library", "Error", ""}}},
      {"get", "/v1/review", "reviewer",
       "Winners waiting for a review decision, across ops, oldest first: accepted, beating the incumbent they were "
       "compared with, neither promoted nor rejected; each with its per-workload evidence, author and bench subset",
       {{"op", "query", {{"type", "string"}}, "only this op (unknown ops are refused with the known ones)"},
        {"limit", "query", int_range(1, 500, 50), "at most this many (`pending` counts them all)"}},
       "", false,
       {{200, "OK", "ReviewQueue", ""}, {404, "not_found: no spec for this op", "Error", ""},
        {503, "no_library", "Error", ""}}},
      {"get", "/v1/library", "agent", "The library's dispatch entries at its head commit", {}, "", false,
       {{200, "OK", "Library", ""}, {503, "no_library", "Error", ""}}},
      {"get", "/v1/library/report", "agent",
       "The library's scorecard as last measured (kwb library report --measure): each incumbent against the fastest "
       "other implementation and its roofs, per op the share at the bar and the geomean, the rows below the bar",
       {}, "", false, {{200, "OK", "LibraryReport", ""}, {503, "no_library", "Error", ""}}},
      {"get", "/v1/library/{op}", "agent", "One op's dispatch entries and library history", {}, "", false,
       {{200, "OK", "Library", ""}, {404, "not_found: no spec for this op", "Error", ""}, {503, "no_library", "Error", ""}}},
      {"post", "/v1/library/{op}/retime", "reviewer",
       "Queue the op's incumbents for evaluation here: fresh tuning records replace theirs", {}, "RetimeBody", true,
       {{202, "queued", "RetimeReply", ""}, {404, "not_found: no such op, or no incumbent here", "Error", ""},
        {503, "no_library", "Error", ""}}},
      {"post", "/v1/tokens", "admin", "Create a token; the secret is shown once", {}, "TokenCreate", false,
       {{201, "created", "TokenCreated", ""}, {422, "invalid_field: unknown role", "Error", ""}}},
      {"get", "/v1/tokens", "admin", "List tokens (never their secrets)", {}, "", false, {{200, "OK", "TokenList", ""}}},
      {"delete", "/v1/tokens/{token_id}", "admin", "Revoke a token, effective from the next request", {}, "", true,
       {{200, "revoked (or already revoked)", "TokenRevoked", ""},
        {404, "not_found: no such token", "Error", ""},
        {409, "last_admin: the last live admin token is not revoked over HTTP", "Error", ""}}},
      {"get", "/metrics", "", "Prometheus metrics (text format 0.0.4)", {}, "", false,
       {{200, "OK", "", "text/plain"}}},
      {"get", "/openapi.json", "", "This document", {}, "", false, {{200, "OK", "", "application/json"}}},
      {"post", "/mcp", "agent",
       "MCP (Streamable HTTP, revisions 2026-07-28 and 2025-11-25): one JSON-RPC message; tools call this API with "
       "the caller's token (docs/mcp.md)",
       {}, "", false,
       {{200, "the JSON-RPC response (application/json, or text/event-stream with progress notifications)", "",
         "application/json"},
        {202, "accepted: a notification or a response", "", "application/json"},
        {403, "a Host or Origin that is not this server's", "Error", ""}}},
      {"get", "/mcp", "agent", "MCP: no server-initiated stream (405)", {}, "", false,
       {{405, "method not allowed", "", "application/json"}}},
      {"delete", "/mcp", "agent", "MCP: end a 2025-11-25 session (Mcp-Session-Id)", {}, "", false,
       {{200, "session ended", "", "application/json"}, {404, "no such session", "", "application/json"}}},
  };
  return k;
}

json error_response(const std::string& description) {
  return {{"description", description},
          {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}};
}

json path_parameter(const std::string& name) {
  json schema = name == "id"       ? json{{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}}
                : name == "op"     ? json{{"type", "string"}, {"pattern", "^[a-z0-9_]{1,64}$"}}
                                   : json{{"type", "integer"}, {"minimum", 1}};
  return {{"name", name}, {"in", "path"}, {"required", true}, {"schema", schema}};
}

json operation(const RouteDoc& r) {
  json op = {{"summary", r.summary}, {"operationId", r.method + r.path}, {"responses", json::object()}};
  json params = json::array();
  for (const char* name : {"id", "op", "token_id"})
    if (r.path.find("{" + std::string(name) + "}") != std::string::npos) params.push_back(path_parameter(name));
  for (const auto& p : r.params)
    params.push_back({{"name", p.name}, {"in", p.in}, {"required", p.required}, {"schema", p.schema}, {"description", p.description}});
  if (!params.empty()) op["parameters"] = params;
  if (!r.request.empty())
    op["requestBody"] = {{"required", !r.request_optional},
                         {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/" + r.request}}}}}}}};
  for (const auto& resp : r.responses) {
    json out = {{"description", resp.description}};
    std::string type = resp.content_type.empty() ? "application/json" : resp.content_type;
    if (!resp.schema.empty()) out["content"][type] = {{"schema", {{"$ref", "#/components/schemas/" + resp.schema}}}};
    else out["content"][type] = {{"schema", type == "application/json" ? json{{"type", "object"}} : json{{"type", "string"}}}};
    op["responses"][std::to_string(resp.status)] = out;
  }
  if (r.path == "/v1/candidates/{id}/events")
    op["responses"]["200"]["content"]["text/event-stream"] = {
        {"schema", {{"type", "string"}, {"description", "id: N / event: KIND / data: Event as one line of JSON"}}}};
  if (r.path == "/v1/candidates/{id}/diff")
    op["responses"]["200"]["content"]["text/x-diff"] = {{"schema", {{"type", "string"}}}};
  // Answers any route may give (the connection gate, auth, the store): docs/api.md.
  auto add = [&](int status, const std::string& description) {
    if (!op["responses"].contains(std::to_string(status))) op["responses"][std::to_string(status)] = error_response(description);
  };
  add(400, "invalid_json, invalid_field, bad_parameter (an unknown query parameter or filter value: the message "
           "lists the valid ones), invalid_header, ...: the message names what is wrong");
  add(408, "request_timeout: headers or body not complete in time");
  add(431, "header_too_large");
  add(429, "rate_limited, queue_quota, too_many_failed_logins, too_many_connections; see Retry-After");
  add(503, "busy (database locked elsewhere), too_many_connections, too_many_streams, server_busy; see Retry-After");
  if (r.method != "get") {
    add(413, "too_large: body over 1 MiB (a source over 256 KiB)");
    add(415, "unsupported_content_encoding");
    add(507, "insufficient_storage: the workspace's disk is full");
  }
  if (r.role.empty()) {
    op["security"] = json::array();  // public
  } else {
    op["security"] = json::array({{{"bearer", json::array()}}});
    op["x-kwb-role"] = r.role;
    add(401, "unauthorized: no token, a token without the 'Bearer ' scheme, or an unknown or revoked token");
    add(403, "forbidden: the token's role is below " + r.role);
  }
  return op;
}

}  // namespace

const std::vector<RouteDoc>& route_docs() { return table(); }

json openapi_document(const std::string& version) {
  json paths = json::object();
  for (const auto& r : table()) paths[r.path][r.method] = operation(r);
  return {{"openapi", "3.1.0"},
          {"info", {{"title", "Kernel Workbench API"},
                    {"version", version},
                    {"description", "Submit candidate kernels, follow their evaluation, read verdicts (kwb.verdict.v1). "
                                    "Errors are {error: {type, message}} (docs/api.md)."}}},
          {"servers", json::array({{{"url", "http://127.0.0.1:8470"}}})},
          {"security", json::array({{{"bearer", json::array()}}})},
          {"paths", paths},
          {"components",
           {{"securitySchemes",
             {{"bearer", {{"type", "http"}, {"scheme", "bearer"},
                          {"description", "Authorization: Bearer <token> (kwb token create --role agent|reviewer|admin)"}}}}},
            {"schemas", openapi_schemas()}}}};
}

}  // namespace kwb::api
