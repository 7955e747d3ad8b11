// tools/list and tools/call: the tool registry (tool.hpp) on the protocol. A tool that fails
// answers isError with its reason (a bad argument, a refused REST call); an unknown tool is
// -32602. A call may run as a task (tasks.cpp): on 2025-11-25 when it carries params.task, on
// 2026-07-28 when it would wait and the request declares the tasks extension.
#include <exception>

#include "mcp/logging.hpp"
#include "mcp/protocol.hpp"
#include "mcp/schema_check.hpp"
#include "mcp/tasks.hpp"
#include "mcp/tool.hpp"

namespace kwb::mcp {

MethodResult list_tools(const RequestContext& ctx) {
  json tools = json::array();
  for (const auto& t : all_tools()) {
    json entry = {{"name", t.name},
                  {"title", t.title},
                  {"description", t.description},
                  {"inputSchema", t.input_schema},
                  {"outputSchema", t.output_schema},
                  {"annotations", t.annotations}};
    // 2025-11-25 tool-level negotiation; absent means "forbidden". 2026-07-28 has no such field:
    // there the server decides per call.
    if (ctx.era == Era::legacy && t.start_task) entry["execution"] = {{"taskSupport", "optional"}};
    tools.push_back(std::move(entry));
  }
  return json{{"tools", tools}};
}

json call_tool_result(const ToolResult& r) {
  json out = {{"content", json::array({{{"type", "text"}, {"text", r.text}}})}, {"isError", r.is_error}};
  if (!r.structured.is_null()) out["structuredContent"] = r.structured;
  return out;
}

void bind_request_notifications(ToolCall& call, const json& params, const RequestContext& ctx, const std::string& related_task) {
  call.cancelled = ctx.cancelled;
  if (!ctx.notify) return;
  json meta = related_task.empty() ? json() : json{{k_meta_related_task, {{"taskId", related_task}}}};
  json token = params.value("_meta", json::object()).value("progressToken", json());
  if (token.is_string() || token.is_number_integer()) {
    call.wants_progress = true;
    call.progress = [token, meta, &ctx](double progress, const std::string& message) {
      json p = {{"progressToken", token}, {"progress", progress}, {"message", message}};
      if (!meta.is_null()) p["_meta"] = meta;
      ctx.notify(make_notification("notifications/progress", std::move(p)));
    };
  }
  if (ctx.log_level >= 0) {
    call.wants_log = true;
    call.log = [&ctx](const std::string& level, const json& data) {
      if (log_level_index(level) >= ctx.log_level) ctx.notify(log_message(level, data));
    };
  }
}

MethodResult call_tool(const json& params, RequestContext& ctx) {
  if (!params.contains("name") || !params["name"].is_string())
    return RpcError{code::invalid_params, "tools/call: params.name (a string) is required", {}};
  std::string name = params["name"];
  const Tool* tool = find_tool(name);
  if (!tool) {
    std::string known;
    for (const auto& t : all_tools()) known += (known.empty() ? "" : ", ") + t.name;
    return RpcError{code::invalid_params, "Unknown tool: " + name + " (tools: " + known + ")", {}};
  }
  // 2025-11-25: the client asks for a task with params.task; a refusal before a task exists is
  // then a JSON-RPC error (the client expects a CreateTaskResult, not a tool result).
  const bool task_requested = ctx.era == Era::legacy && params.contains("task");
  if (task_requested) {
    if (!params["task"].is_object())
      return RpcError{code::invalid_params, "tools/call: params.task must be an object ({} or {\"ttl\": milliseconds})", {}};
    if (!tool->start_task)
      return RpcError{code::method_not_found,
                      "tools/call: " + name + " does not run as a task (execution.taskSupport is forbidden): call it without params.task",
                      {}};
  }
  auto refuse = [&](const ToolResult& r) -> MethodResult {
    if (task_requested) return RpcError{code::invalid_params, r.text + " (no task was created)", {{"toolResult", call_tool_result(r)}}};
    return json(call_tool_result(r));
  };
  json args = params.contains("arguments") ? params["arguments"] : json::object();
  if (args.is_null()) args = json::object();
  if (!args.is_object()) return refuse(tool_error(name + ": arguments must be an object"));
  if (auto problem = schema_problem(tool->input_schema, args)) return refuse(tool_error(name + ": " + *problem));
  if (!ctx.rest) return RpcError{code::internal_error, "no REST API bound to this request", {}};

  ToolCall call{args, *ctx.rest};
  bind_request_notifications(call, params, ctx);
  try {
    const bool server_directed_task = ctx.era == Era::modern && tool->start_task && tool->long_running &&
                                      has_tasks_extension(ctx) && tool->long_running(call);
    if (task_requested || server_directed_task) {
      TaskStart started = tool->start_task(call);
      if (auto* failed = std::get_if<ToolResult>(&started)) return refuse(*failed);
      return create_task_result(std::get<std::string>(started), ctx);
    }
    return json(call_tool_result(tool->run(call)));
  } catch (const std::exception& e) {  // a tool bug must not end the request without an answer
    return refuse(tool_error(name + ": internal error: " + e.what()));
  }
}

}  // namespace kwb::mcp
