#pragma once
// Tasks (docs/mcp.md "Tasks"): a tool call that runs as a task answers at once with a task
// handle; the client then polls the task and reads its result. A task is a candidate that the
// caller's token submitted: the task id is the candidate id, the status comes from the
// candidate's state, the result is get_verdict's answer, and cancelling it is the REST cancel
// (the same ownership rules). Tasks therefore live as long as the candidates (in the workspace
// database: across sessions, `kwb mcp` processes and daemon restarts).
//
// Two wires, chosen by the request's revision:
//   2025-11-25 (capability `tasks`): the client asks with params.task; CreateTaskResult
//     {task}; tasks/get, tasks/result (blocks until terminal), tasks/list, tasks/cancel.
//   2026-07-28 (extension io.modelcontextprotocol/tasks, declared per request): the server
//     decides (a call that would wait); flat CreateTaskResult with resultType "task";
//     tasks/get inlines the result; tasks/update, tasks/cancel (empty acks); -32021 without
//     the extension.
#include <string>

#include "mcp/protocol.hpp"
#include "mcp/tool.hpp"

namespace kwb::mcp {

inline constexpr const char* k_tasks_extension = "io.modelcontextprotocol/tasks";
inline constexpr const char* k_meta_related_task = "io.modelcontextprotocol/related-task";
inline constexpr const char* k_meta_immediate_response = "io.modelcontextprotocol/model-immediate-response";
inline constexpr int k_task_poll_interval_ms = 1000;

// Whether the request's client capabilities declare the 2026-07-28 tasks extension.
bool has_tasks_extension(const RequestContext& ctx);

// A candidate (GET /v1/candidates/{id}) as a Task of the era's wire: taskId, status (working,
// completed or cancelled; a candidate whose cancellation was requested is cancelled from then
// on), statusMessage, createdAt, lastUpdatedAt, ttl/ttlMs (null: kept for good),
// pollInterval/pollIntervalMs.
json task_view(const json& candidate, Era era);
bool task_terminal(const json& task);

// Binds a running call's progress notifications (when params._meta.progressToken is set) and
// log messages (when the request asked for them) to the request's stream; with
// `related_task`, each progress notification names that task in its _meta.
void bind_request_notifications(ToolCall& call, const json& params, const RequestContext& ctx, const std::string& related_task = "");

// The answer of a tools/call that started candidate `id` as a task.
MethodResult create_task_result(const std::string& id, const RequestContext& ctx);

// The tasks/* methods (for both eras where they exist; Protocol::serves says which).
MethodResult get_task(const json& params, const RequestContext& ctx);
// 2025-11-25: blocks until the task is terminal; with a progressToken it follows the candidate's
// events meanwhile, one progress notification each (on HTTP: an event stream), and announces
// the terminal status (notifications/tasks/status) before the result.
MethodResult get_task_result(const json& params, const RequestContext& ctx);
MethodResult list_tasks(const json& params, const RequestContext& ctx);       // 2025-11-25
MethodResult cancel_task(const json& params, const RequestContext& ctx);
MethodResult update_task(const json& params, const RequestContext& ctx);      // 2026-07-28

}  // namespace kwb::mcp
