#pragma once
// One MCP tool: its name, a description written for a model, input and output JSON Schemas,
// and the code that runs it on the REST API with the caller's token (docs/mcp.md "Tools").
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/rest.hpp"

namespace kwb::mcp {

using nlohmann::json;

// What a running tool may use besides its arguments.
struct ToolCall {
  const json& args;
  Rest& rest;
  // Sends notifications/progress when the client asked for them (a progressToken); a no-op
  // otherwise. progress must increase with every call.
  std::function<void(double progress, const std::string& message)> progress = [](double, const std::string&) {};
  bool wants_progress = false;
  // Sends notifications/message when the request asked for log messages at `level` or less
  // severe (logging.hpp); a no-op otherwise.
  std::function<void(const std::string& level, const json& data)> log = [](const std::string&, const json&) {};
  bool wants_log = false;
  // True once the client cancelled the request or went away: stop waiting.
  std::function<bool()> cancelled = [] { return false; };
};

// A tool's answer: `text` leads with what a model needs; `structured` fits the output schema.
// is_error: the tool ran but failed (a bad argument, a refused REST call): the text says why.
struct ToolResult {
  std::string text;
  json structured;  // null: none (only with is_error)
  bool is_error = false;
};

// What starting a tool as a task gave: the id of the candidate the task follows, or the tool
// error that stopped it before a candidate existed (a refused submission).
using TaskStart = std::variant<std::string, ToolResult>;

struct Tool {
  std::string name, title, description;
  json input_schema, output_schema;
  json annotations;  // readOnlyHint, destructiveHint, idempotentHint, openWorldHint
  std::function<ToolResult(ToolCall&)> run;
  // Tools that may run as a task (docs/mcp.md "Tasks"); empty: never (taskSupport forbidden).
  // start_task submits and returns at once; the task's result is what `run` would have answered
  // once the candidate is done.
  std::function<TaskStart(ToolCall&)> start_task = {};
  // Whether this call would wait for its outcome (then a 2026-07-28 client that declared the
  // tasks extension gets a task instead).
  std::function<bool(const ToolCall&)> long_running = {};
};

// Every tool, in the order tools/list shows them.
const std::vector<Tool>& all_tools();
const Tool* find_tool(const std::string& name);

// Helpers for tool code.
ToolResult tool_error(std::string text);
ToolResult rest_error(const RestReply& r, const std::string& doing);  // "submit_kernel: HTTP 422 ..."
std::string json_text(const json& j);  // compact JSON, invalid UTF-8 replaced
json object_schema(json properties, std::vector<std::string> required = {});
json call_tool_result(const ToolResult& r);
// Long-polls candidate `id` until it is done or cancelled, `wait_s` ran out or the request was
// cancelled; with progress or log messages wanted, follows its events and sends one
// notification per event. Answers GET /v1/candidates/{id} at the end.
// `state` carries the last progress value and event id from one call to the next.
struct Following {
  double progress = 0;
  int64_t after = 0;
};
RestReply follow_candidate(ToolCall& call, const std::string& id, int wait_s, Following& state);
// get_verdict's answer for a candidate (GET /v1/candidates/{id}); a task's result once done.
ToolResult candidate_answer(const json& candidate);  // the CallToolResult: content, isError, structuredContent

// The tool groups (tools_*.cpp).
void add_read_tools(std::vector<Tool>& out);
void add_candidate_tools(std::vector<Tool>& out);
void add_review_tools(std::vector<Tool>& out);
void add_attempt_tools(std::vector<Tool>& out);  // list_attempts, get_lineage

}  // namespace kwb::mcp
