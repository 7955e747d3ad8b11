// submit_kernel, get_verdict, cancel, profile_kernel: POST /v1/candidates (+ following its events),
// GET /v1/candidates/{id}?wait=, POST /v1/candidates/{id}/cancel, POST /v1/candidates/{id}/profile
// — with the caller's token.
#include <algorithm>
#include <chrono>

#include "mcp/logging.hpp"
#include "mcp/tool.hpp"
#include "mcp/verdict_text.hpp"

namespace kwb::mcp {

namespace {

using Clock = std::chrono::steady_clock;

const json k_id = {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}, {"description", "a candidate id, e.g. \"c-0123456789abcdef\""}};
constexpr int k_max_wait_s = 600;
constexpr int k_poll_s = 10;  // one REST long-poll; between them a cancelled MCP request is noticed

json candidate_output_schema() {
  auto nullable = [](const char* t) { return json{{"type", {t, "null"}}}; };
  return {{"type", "object"},
          {"required", {"id", "state", "done"}},
          {"properties",
           {{"id", {{"type", "string"}}},
            {"op", {{"type", "string"}}},
            {"state", {{"type", "string"}}},
            {"done", {{"type", "boolean"}}},
            {"status", nullable("string")},
            {"comparison",
             {{"type", "string"},
              {"enum", {"none", "pending", "done"}},
              {"description", "the decision against the incumbent, which follows the verdict: pending while it runs"}}},
            {"reason", {{"type", "string"}}},
            {"first_mismatch", nullable("object")},
            {"diagnostic", nullable("object")},
            {"speedup_vs_incumbent", nullable("number")},
            {"beats_incumbent", nullable("boolean")},
            {"verdict", {{"type", "object"}}}}}};
}

int wait_seconds(const ToolCall& call, int fallback) { return int(call.args.value("wait_s", fallback)); }

// Nothing more happens to it: cancelled, or done with its decision against the incumbent in (or
// none to come); a verdict whose comparison is pending is followed on to the decision.
bool finished(const json& c) {
  const std::string state = c.value("state", "");
  if (state == "cancelled") return true;
  if (state != "done") return false;
  return !(c.contains("comparison") && c["comparison"].is_object() && c["comparison"].value("state", "") == "pending");
}

std::string event_line(const json& e) {
  const json d = e.value("data", json::object());
  std::string kind = e.value("kind", "");
  if (kind == "state") return "state " + d.value("state", "") + (d.contains("detail") ? " (" + d.value("detail", "") + ")" : "");
  if (kind == "stage")
    return d.value("stage", "") + (d.value("finished", false) ? " done" : " started") +
           (d.contains("detail") ? ": " + d.value("detail", "") : "");
  if (kind == "verdict")
    return "verdict " + d.value("status", "") + ": " + d.value("reason", "") +
           (d.value("comparison", "") == "pending" ? " (comparison with the incumbent running)" : "");
  if (kind == "comparison")
    return std::string("decision: ") + (d.value("promotable", false) ? "promotable" : "not promotable") + ": " +
           d.value("reason", "");
  if (kind == "progress") {  // per workload (validate, benchmark), or a note of the decide stage's judge
    if (!d.contains("workload")) return d.value("stage", "") + ": " + d.value("detail", "");
    std::string line = d.value("stage", "") + ": " + d.value("workload", "") + " (" + d.value("kind", "") + ")";
    if (d.contains("samples") && d["samples"].is_number()) line += ", " + std::to_string(d["samples"].get<int64_t>()) + " samples";
    return line;
  }
  return kind;
}

}  // namespace

RestReply follow_candidate(ToolCall& call, const std::string& id, int wait_s, Following& state) {
  auto deadline = Clock::now() + std::chrono::seconds(wait_s);
  while (!call.cancelled()) {
    auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left_ms <= 0) break;
    int left = int((left_ms + 999) / 1000);  // a last fraction of a second still polls (once)
    int chunk = std::min(left, k_poll_s);
    if (call.wants_progress || call.wants_log) {
      auto r = call.rest.get("/v1/candidates/" + id + "/events?wait=" + std::to_string(chunk) + "&after=" + std::to_string(state.after));
      if (!r.ok()) return r;
      for (const auto& e : r.body.value("events", json::array())) {
        if (call.wants_progress) call.progress(++state.progress, event_line(e));
        call.log(event_log_level(e), {{"candidate", id}, {"message", event_line(e)}, {"event", e}});
      }
      state.after = r.body.value("after", state.after);
      if (r.body.value("done", false)) break;
    } else {
      auto r = call.rest.get("/v1/candidates/" + id + "?wait=" + std::to_string(chunk));
      if (!r.ok() || finished(r.body)) return r;
    }
  }
  return call.rest.get("/v1/candidates/" + id);
}

namespace {

RestReply post_candidate(ToolCall& call) {
  json body = call.args;
  body.erase("wait_s");
  body.erase("idempotency_key");
  RestHeaders headers;
  if (call.args.contains("idempotency_key")) headers.emplace_back("Idempotency-Key", call.args["idempotency_key"].get<std::string>());
  return call.rest.post("/v1/candidates", body, headers);
}

// Without wait_s, a call with a progressToken follows the candidate up to 300 s.
int submit_wait_s(const ToolCall& call) { return wait_seconds(call, call.wants_progress ? 300 : 0); }

// The task form (docs/mcp.md "Tasks"): submits and answers with the candidate id at once; the
// task's result is the verdict answer below.
TaskStart start_submit_task(ToolCall& call) {
  auto r = post_candidate(call);
  if (!r.ok()) return rest_error(r, "submit_kernel");
  return r.body.value("id", "");
}

ToolResult submit_kernel(ToolCall& call) {
  auto r = post_candidate(call);
  if (!r.ok()) return rest_error(r, "submit_kernel");
  std::string id = r.body.value("id", "");
  Following following;
  std::string line = "submitted " + id + (r.status == 200 ? " (an earlier submission with this idempotency_key)" : "");
  call.progress(++following.progress, line);
  call.log("info", {{"candidate", id}, {"message", line}});
  int wait_s = submit_wait_s(call);
  if (wait_s == 0) {
    json c = {{"id", id}, {"state", r.body.value("state", "queued")}, {"op", call.args["op"]}};
    return {"submitted: " + id + " (state " + c["state"].get<std::string>() + "); call get_verdict with {\"id\": \"" + id +
                "\", \"wait_s\": 120} for its verdict",
            candidate_summary(c)};
  }
  auto done = follow_candidate(call, id, wait_s, following);
  if (!done.ok()) return rest_error(done, "submit_kernel: following " + id);
  return candidate_answer(done.body);
}

ToolResult get_verdict(ToolCall& call) {
  std::string id = call.args["id"];
  Following following;
  call.wants_progress = false;  // get_verdict reports the verdict, not each stage
  auto r = follow_candidate(call, id, wait_seconds(call, 0), following);
  if (!r.ok()) return rest_error(r, "get_verdict " + id);
  return candidate_answer(r.body);
}

// A profile pass: the candidate again as a new one with "profile": true (docs/mcp.md).
ToolResult profile_kernel(ToolCall& call) {
  std::string id = call.args["id"];
  auto r = call.rest.post("/v1/candidates/" + id + "/profile", json::object());
  if (!r.ok()) return rest_error(r, "profile_kernel " + id);
  std::string fresh = r.body.value("id", "");
  Following following;
  std::string line = "profiling " + id + " as " + fresh;
  call.progress(++following.progress, line);
  call.log("info", {{"candidate", fresh}, {"message", line}});
  int wait_s = submit_wait_s(call);
  if (wait_s == 0) {
    json c = {{"id", fresh}, {"state", r.body.value("state", "queued")}};
    return {line + " (state " + c["state"].get<std::string>() + "); call get_verdict with {\"id\": \"" + fresh +
                "\", \"wait_s\": 120}: its verdict's profile says what came of it",
            candidate_summary(c)};
  }
  auto done = follow_candidate(call, fresh, wait_s, following);
  if (!done.ok()) return rest_error(done, "profile_kernel: following " + fresh);
  return candidate_answer(done.body);
}

ToolResult cancel(ToolCall& call) {
  std::string id = call.args["id"];
  auto r = call.rest.post("/v1/candidates/" + id + "/cancel", json::object());
  if (!r.ok()) return rest_error(r, "cancel " + id);
  return {r.body.value("state", "") + ": " + id + " — " + r.body.value("detail", ""), r.body};
}

json submit_schema() {
  json strings = {{"type", "array"}, {"items", {{"type", "string"}, {"maxLength", 4096}}}, {"maxItems", 64}};
  return object_schema(
      {{"op", {{"type", "string"}, {"pattern", "^[a-z][a-z0-9_]{0,63}$"}, {"description", "the op (list_ops)"}}},
       {"source", {{"type", "string"}, {"minLength", 1}, {"maxLength", 262144},
                   {"description", "the whole candidate file: C++ defining the variant's extern \"C\" entry (cpu), or CUDA kernels (cuda, cuda-launcher)"}}},
       {"backend", {{"type", "string"}, {"enum", {"cpu", "cuda", "cuda-launcher"}}, {"description", "default cpu"}}},
       {"variant", {{"type", "string"}, {"maxLength", 64}, {"description", "a dtype variant of the spec; default: inferred from the entry symbol"}}},
       {"source_name", {{"type", "string"}, {"pattern", "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$"}, {"description", "file name diagnostics use"}}},
       {"launch", {{"type", {"string", "array"}}, {"items", {{"type", "string"}}}, {"description", "cuda only: the launch plan (docs/cuda.md), lines of kwb:launch"}}},
       {"tune", {{"type", "object"}, {"additionalProperties", {{"type", "array"}, {"items", {{"type", "integer"}}}}},
                 {"description", "cuda only: tunables, e.g. {\"BLOCK\": [128, 256]}"}}},
       {"bench", {{"type", "array"}, {"items", {{"type", "string"}}}, {"maxItems", 64},
                  {"description", "time only these bench workloads (faster feedback; such a verdict cannot be promoted)"}}},
       {"device_class", {{"type", "string"}, {"maxLength", 64},
                         {"description", "evaluate on a device of this class (GET /v1/devices' device_classes, e.g. "
                                         "cuda-sm_90); default: any"}}},
       {"flags", strings},
       {"profile", {{"type", "boolean"},
                    {"description", "ask for a profile (Nsight Compute) of the bench workloads; the verdict's profile says what came of it (no_device without a GPU)"}}},
       {"note", {{"type", "string"}, {"maxLength", 4096}}},
       {"parent", k_id},
       {"idempotency_key", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200},
                            {"description", "retry-safe: the same key and arguments return the first submission"}}},
       {"wait_s", {{"type", "integer"}, {"minimum", 0}, {"maximum", k_max_wait_s},
                   {"description", "follow the candidate up to this long before answering (default 0 = answer at once with the id; 300 when the request carries a progressToken)"}}}},
      {"op", "source"});
}

}  // namespace

ToolResult candidate_answer(const json& candidate) { return {candidate_text(candidate), candidate_summary(candidate)}; }

void add_candidate_tools(std::vector<Tool>& out) {
  out.push_back({"submit_kernel", "Submit a candidate kernel",
                 "Submits a candidate kernel for evaluation: it is statically analysed, compiled in a sandbox, checked against "
                 "the spec's trusted reference on fresh secret-seeded inputs (and freshly drawn shapes), timed, and compared with "
                 "the incumbent. Returns the candidate id at once (wait_s 0); with a progressToken it sends one progress "
                 "notification per stage (the first names the id) and answers with the verdict. Then use get_verdict, "
                 "diff_vs_incumbent. A compile error or a wrong result is a verdict, not a tool error.",
                 submit_schema(), candidate_output_schema(),
                 {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false}, {"openWorldHint", false}},
                 submit_kernel, start_submit_task, [](const ToolCall& c) { return submit_wait_s(c) > 0; }});
  out.push_back({"get_verdict", "Get a candidate's verdict",
                 "A candidate's state and, once done, its verdict. The text leads with the status (accepted, incorrect, "
                 "compile_error, rejected, ...), the one-line reason, the first mismatch (workload, tensor, index, got, expected) "
                 "or the first compiler/analysis diagnostic, and the speed-up against the incumbent. wait_s waits for the verdict "
                 "(up to 600 s) instead of answering with the current state.",
                 object_schema({{"id", k_id}, {"wait_s", {{"type", "integer"}, {"minimum", 0}, {"maximum", k_max_wait_s}, {"description", "default 0"}}}}, {"id"}),
                 candidate_output_schema(),
                 {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}},
                 get_verdict});
  out.push_back({"profile_kernel", "Profile a candidate",
                 "Asks for a profile of a candidate: it is evaluated again as a new candidate (parent: the given id) with "
                 "profile true, so its first verdict's timings stay as they were. The new verdict's profile says what came "
                 "of it: measured (each bench workload's feedback.profile: DRAM and SM speed of light, occupancy and "
                 "its limiter, cache hit rates, sectors per request, bank conflicts, warp stalls, and findings saying "
                 "what to do), no_device where the daemon has no GPU, not_applicable for cpu candidates, skipped when "
                 "the candidate fails its checks, unavailable where the machine has no Nsight Compute. Its compiler_facts (registers, "
                 "spills, occupancy, PTX and SASS instruction mix) and roofline position are there either way. Answers "
                 "with the new id at once (wait_s 0), or follows it like submit_kernel.",
                 object_schema({{"id", k_id},
                                {"wait_s", {{"type", "integer"}, {"minimum", 0}, {"maximum", k_max_wait_s},
                                            {"description", "follow the new candidate up to this long (default 0; 300 with a progressToken)"}}}},
                               {"id"}),
                 candidate_output_schema(),
                 {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false}, {"openWorldHint", false}},
                 profile_kernel});
  out.push_back({"cancel", "Cancel a candidate",
                 "Cancels a queued or running candidate (at once when queued, after the current stage when running; a finished "
                 "one is left alone). Only the token that submitted it, a reviewer or an admin may cancel it.",
                 object_schema({{"id", k_id}}, {"id"}),
                 json::parse(R"({"type": "object", "required": ["id", "state"],
                   "properties": {"id": {"type": "string"}, "state": {"type": "string"}, "detail": {"type": "string"}}})"),
                 {{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", true}, {"openWorldHint", false}},
                 cancel});
}

}  // namespace kwb::mcp
