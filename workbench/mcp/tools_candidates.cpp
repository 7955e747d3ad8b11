// submit_kernel, get_verdict, cancel: POST /v1/candidates (+ following its events),
// GET /v1/candidates/{id}?wait=, POST /v1/candidates/{id}/cancel — with the caller's token.
#include <algorithm>
#include <chrono>

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
            {"reason", {{"type", "string"}}},
            {"first_mismatch", nullable("object")},
            {"diagnostic", nullable("object")},
            {"speedup_vs_incumbent", nullable("number")},
            {"beats_incumbent", nullable("boolean")},
            {"verdict", {{"type", "object"}}}}}};
}

int wait_seconds(const ToolCall& call, int fallback) { return int(call.args.value("wait_s", fallback)); }

bool finished(const json& c) { return c.value("state", "") == "done" || c.value("state", "") == "cancelled"; }

std::string event_line(const json& e) {
  const json d = e.value("data", json::object());
  std::string kind = e.value("kind", "");
  if (kind == "state") return "state " + d.value("state", "") + (d.contains("detail") ? " (" + d.value("detail", "") + ")" : "");
  if (kind == "stage")
    return d.value("stage", "") + (d.value("finished", false) ? " done" : " started") +
           (d.contains("detail") ? ": " + d.value("detail", "") : "");
  if (kind == "verdict") return "verdict " + d.value("status", "") + ": " + d.value("reason", "");
  return kind;
}

// Long-polls the candidate until it is done, `wait_s` ran out or the client cancelled; with
// progress wanted, follows its events and sends one notification per event.
RestReply follow(ToolCall& call, const std::string& id, int wait_s, double& progress) {
  auto deadline = Clock::now() + std::chrono::seconds(wait_s);
  int64_t after = 0;
  while (!call.cancelled()) {
    int left = int(std::chrono::duration_cast<std::chrono::seconds>(deadline - Clock::now()).count());
    if (left <= 0) break;
    int chunk = std::min(left, k_poll_s);
    if (call.wants_progress) {
      auto r = call.rest.get("/v1/candidates/" + id + "/events?wait=" + std::to_string(chunk) + "&after=" + std::to_string(after));
      if (!r.ok()) return r;
      for (const auto& e : r.body.value("events", json::array())) call.progress(++progress, event_line(e));
      after = r.body.value("after", after);
      if (r.body.value("done", false)) break;
    } else {
      auto r = call.rest.get("/v1/candidates/" + id + "?wait=" + std::to_string(chunk));
      if (!r.ok() || finished(r.body)) return r;
    }
  }
  return call.rest.get("/v1/candidates/" + id);
}

ToolResult answer(const json& candidate) { return {candidate_text(candidate), candidate_summary(candidate)}; }

ToolResult submit_kernel(ToolCall& call) {
  json body = call.args;
  body.erase("wait_s");
  body.erase("idempotency_key");
  RestHeaders headers;
  if (call.args.contains("idempotency_key")) headers.emplace_back("Idempotency-Key", call.args["idempotency_key"].get<std::string>());
  auto r = call.rest.post("/v1/candidates", body, headers);
  if (!r.ok()) return rest_error(r, "submit_kernel");
  std::string id = r.body.value("id", "");
  double progress = 0;
  call.progress(++progress, "submitted " + id + (r.status == 200 ? " (an earlier submission with this idempotency_key)" : ""));
  int wait_s = wait_seconds(call, call.wants_progress ? 300 : 0);
  if (wait_s == 0) {
    json c = {{"id", id}, {"state", r.body.value("state", "queued")}, {"op", call.args["op"]}};
    return {"submitted: " + id + " (state " + c["state"].get<std::string>() + "); call get_verdict with {\"id\": \"" + id +
                "\", \"wait_s\": 120} for its verdict",
            candidate_summary(c)};
  }
  auto done = follow(call, id, wait_s, progress);
  if (!done.ok()) return rest_error(done, "submit_kernel: following " + id);
  return answer(done.body);
}

ToolResult get_verdict(ToolCall& call) {
  std::string id = call.args["id"];
  double progress = 0;
  call.wants_progress = false;  // get_verdict reports the verdict, not each stage
  auto r = follow(call, id, wait_seconds(call, 0), progress);
  if (!r.ok()) return rest_error(r, "get_verdict " + id);
  return answer(r.body);
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
       {"flags", strings},
       {"note", {{"type", "string"}, {"maxLength", 4096}}},
       {"parent", k_id},
       {"idempotency_key", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200},
                            {"description", "retry-safe: the same key and arguments return the first submission"}}},
       {"wait_s", {{"type", "integer"}, {"minimum", 0}, {"maximum", k_max_wait_s},
                   {"description", "follow the candidate up to this long before answering (default 0 = answer at once with the id; 300 when the request carries a progressToken)"}}}},
      {"op", "source"});
}

}  // namespace

void add_candidate_tools(std::vector<Tool>& out) {
  out.push_back({"submit_kernel", "Submit a candidate kernel",
                 "Submits a candidate kernel for evaluation: it is statically analysed, compiled in a sandbox, checked against "
                 "the spec's trusted reference on fresh secret-seeded inputs (and freshly drawn shapes), timed, and compared with "
                 "the incumbent. Returns the candidate id at once (wait_s 0); with a progressToken it sends one progress "
                 "notification per stage (the first names the id) and answers with the verdict. Then use get_verdict, "
                 "diff_vs_incumbent. A compile error or a wrong result is a verdict, not a tool error.",
                 submit_schema(), candidate_output_schema(),
                 {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false}, {"openWorldHint", false}},
                 submit_kernel});
  out.push_back({"get_verdict", "Get a candidate's verdict",
                 "A candidate's state and, once done, its verdict. The text leads with the status (accepted, incorrect, "
                 "compile_error, rejected, ...), the one-line reason, the first mismatch (workload, tensor, index, got, expected) "
                 "or the first compiler/analysis diagnostic, and the speed-up against the incumbent. wait_s waits for the verdict "
                 "(up to 600 s) instead of answering with the current state.",
                 object_schema({{"id", k_id}, {"wait_s", {{"type", "integer"}, {"minimum", 0}, {"maximum", k_max_wait_s}, {"description", "default 0"}}}}, {"id"}),
                 candidate_output_schema(),
                 {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}},
                 get_verdict});
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
