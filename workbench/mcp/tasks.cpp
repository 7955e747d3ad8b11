// The tasks/* methods and the CreateTaskResult (tasks.hpp): every one reads or cancels the
// caller's own candidate through the REST API with the caller's token.
#include <cctype>
#include <chrono>

#include "mcp/tasks.hpp"
#include "mcp/tool.hpp"

namespace kwb::mcp {

namespace {

constexpr int k_result_poll_s = 10;  // one REST long-poll of tasks/result; a cancelled request is noticed between them

bool candidate_id(const std::string& s) {
  if (s.size() != 18 || !s.starts_with("c-")) return false;
  for (size_t i = 2; i < s.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i])) || std::isupper(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// 2026-07-28: the task methods need the extension declared on the request.
std::optional<RpcError> gate(const std::string& method, const RequestContext& ctx) {
  if (ctx.era == Era::legacy || has_tasks_extension(ctx)) return std::nullopt;
  return RpcError{code::missing_client_capability,
                  std::string("Missing required client capability: ") + method + " needs the " + k_tasks_extension +
                      " extension in _meta[\"" + k_meta_capabilities + "\"].extensions",
                  {{"requiredCapabilities", {{"extensions", {{k_tasks_extension, json::object()}}}}}}};
}

struct TaskRef {
  std::string id;
  json candidate;
};

// The caller's own candidate named by params.taskId (after `wait_s` of long-poll), or -32602:
// an id that is no candidate, or a candidate another token submitted (not this caller's task).
std::variant<TaskRef, RpcError> own_task(const json& params, const std::string& method, const RequestContext& ctx, int wait_s = 0) {
  if (auto e = gate(method, ctx)) return *e;
  if (!params.contains("taskId") || !params["taskId"].is_string())
    return RpcError{code::invalid_params, method + ": params.taskId (a string) is required", {}};
  std::string id = params["taskId"];
  if (!candidate_id(id))
    return RpcError{code::invalid_params, method + ": Task not found: '" + id + "' (task ids are candidate ids, c- and 16 hex digits)",
                    {{"taskId", id}}};
  if (!ctx.rest) return RpcError{code::internal_error, "no REST API bound to this request", {}};
  auto r = ctx.rest->get("/v1/candidates/" + id + (wait_s > 0 ? "?wait=" + std::to_string(wait_s) : ""));
  if (r.status == 404) return RpcError{code::invalid_params, method + ": Task not found: " + id, {{"taskId", id}}};
  if (!r.ok()) return RpcError{code::internal_error, method + " " + id + ": " + r.error_line(), {}};
  if (!r.body.value("mine", false))
    return RpcError{code::invalid_params,
                    method + ": Task not found: " + id + " is a candidate another token submitted, not a task of this token "
                             "(get_verdict reads any candidate)",
                    {{"taskId", id}}};
  return TaskRef{id, std::move(r.body)};
}

// What the task's tools/call would have answered had it waited: get_verdict's answer.
json tool_result_of(const json& candidate) { return call_tool_result(candidate_answer(candidate)); }

}  // namespace

MethodResult create_task_result(const std::string& id, const RequestContext& ctx) {
  auto r = ctx.rest->get("/v1/candidates/" + id);
  if (!r.ok()) return RpcError{code::internal_error, "tools/call: submitted " + id + " but could not read it back: " + r.error_line(), {}};
  json task = task_view(r.body, ctx.era);
  std::string immediate = "submitted " + id + "; its verdict will be this task's result (or call get_verdict with {\"id\": \"" +
                          id + "\", \"wait_s\": 120})";
  if (ctx.era == Era::legacy) return json{{"task", std::move(task)}, {"_meta", {{k_meta_immediate_response, immediate}}}};
  task["resultType"] = "task";
  return task;
}

MethodResult get_task(const json& params, const RequestContext& ctx) {
  auto t = own_task(params, "tasks/get", ctx);
  if (auto* e = std::get_if<RpcError>(&t)) return *e;
  auto& ref = std::get<TaskRef>(t);
  json task = task_view(ref.candidate, ctx.era);
  // 2026-07-28 inlines the result of a completed task (there is no tasks/result).
  if (ctx.era == Era::modern && task["status"] == "completed") task["result"] = tool_result_of(ref.candidate);
  return task;
}

MethodResult get_task_result(const json& params, const RequestContext& ctx) {
  auto t = own_task(params, "tasks/result", ctx);
  if (auto* e = std::get_if<RpcError>(&t)) return *e;
  const std::string id = std::get<TaskRef>(t).id;
  const json no_args = json::object();
  ToolCall call{no_args, *ctx.rest};
  bind_request_notifications(call, params, ctx, id);
  Following following;
  const bool was_working = !task_terminal(task_view(std::get<TaskRef>(t).candidate, ctx.era));
  // Each round follows the candidate (its events, when notifications are wanted) for at most one
  // long-poll; between rounds the task's own view decides (a requested cancellation is final).
  while (!task_terminal(task_view(std::get<TaskRef>(t).candidate, ctx.era))) {
    if (ctx.cancelled()) return RpcError{code::internal_error, "tasks/result: the request was cancelled", {}};
    if (call.wants_progress || call.wants_log) {
      auto r = follow_candidate(call, id, k_result_poll_s, following);
      if (!r.ok()) return RpcError{code::internal_error, "tasks/result " + id + ": " + r.error_line(), {}};
      std::get<TaskRef>(t).candidate = std::move(r.body);
    } else {
      t = own_task(params, "tasks/result", ctx, k_result_poll_s);
      if (auto* e = std::get_if<RpcError>(&t)) return *e;
    }
  }
  // The last round may have ended (its long-poll ran out) just before the candidate's last events:
  // send what is left, at once (the candidate is done, or stops after its current stage).
  if (was_working && (call.wants_progress || call.wants_log)) (void)follow_candidate(call, id, 1, following);
  auto& ref = std::get<TaskRef>(t);
  // The one status change a waiting client can be told of, on this request's stream (stdio, or an
  // HTTP event stream); the response follows.
  if (was_working && ctx.notify) ctx.notify(make_notification("notifications/tasks/status", task_view(ref.candidate, ctx.era)));
  json result = tool_result_of(ref.candidate);
  result["_meta"][k_meta_related_task] = {{"taskId", ref.id}};
  return result;
}

MethodResult list_tasks(const json& params, const RequestContext& ctx) {
  std::string target = "/v1/candidates?mine=true&limit=50";
  if (params.contains("cursor")) {
    const json& c = params["cursor"];
    std::string s = c.is_string() ? c.get<std::string>() : "";
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos || s == "0")
      return RpcError{code::invalid_params, "tasks/list: invalid cursor " + c.dump() + " (pass nextCursor of the previous page)", {}};
    target += "&before=" + s;
  }
  if (!ctx.rest) return RpcError{code::internal_error, "no REST API bound to this request", {}};
  auto r = ctx.rest->get(target);
  if (!r.ok()) return RpcError{code::internal_error, "tasks/list: " + r.error_line(), {}};
  json tasks = json::array();
  for (const auto& c : r.body.value("items", json::array())) tasks.push_back(task_view(c, ctx.era));
  json out = {{"tasks", tasks}};
  if (r.body.contains("next") && r.body["next"].is_string()) {  // "/v1/candidates?limit=50&before=N&mine=true"
    std::string next = r.body["next"];
    auto at = next.find("before=");
    if (at != std::string::npos) out["nextCursor"] = next.substr(at + 7, next.find('&', at) - (at + 7));
  }
  return out;
}

MethodResult cancel_task(const json& params, const RequestContext& ctx) {
  auto t = own_task(params, "tasks/cancel", ctx);
  if (auto* e = std::get_if<RpcError>(&t)) return *e;
  auto& ref = std::get<TaskRef>(t);
  json before = task_view(ref.candidate, ctx.era);
  if (task_terminal(before)) {
    if (ctx.era == Era::modern) return json::object();  // 2026-07-28: an idempotent empty ack
    return RpcError{code::invalid_params,
                    "Cannot cancel task: " + ref.id + " is already in terminal status '" + before["status"].get<std::string>() + "'",
                    {{"taskId", ref.id}}};
  }
  auto r = ctx.rest->post("/v1/candidates/" + ref.id + "/cancel", json::object());
  if (!r.ok()) return RpcError{code::internal_error, "tasks/cancel " + ref.id + ": " + r.error_line(), {}};
  if (ctx.era == Era::modern) return json::object();  // cancellation is observed through tasks/get
  if (r.body.value("state", "") == "done")  // it finished first
    return RpcError{code::invalid_params, "Cannot cancel task: " + ref.id + " is already in terminal status 'completed'", {{"taskId", ref.id}}};
  auto after = own_task(params, "tasks/cancel", ctx);
  if (auto* e = std::get_if<RpcError>(&after)) return *e;
  return task_view(std::get<TaskRef>(after).candidate, ctx.era);  // cancelled: the cancellation was requested
}

MethodResult update_task(const json& params, const RequestContext& ctx) {
  auto t = own_task(params, "tasks/update", ctx);
  if (auto* e = std::get_if<RpcError>(&t)) return *e;
  if (!params.contains("inputResponses") || !params["inputResponses"].is_object())
    return RpcError{code::invalid_params, "tasks/update: params.inputResponses (an object) is required", {}};
  return json::object();  // kwb's tasks never ask for input: every response is for no outstanding request, ignored
}

}  // namespace kwb::mcp
