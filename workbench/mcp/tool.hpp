#pragma once
// One MCP tool: its name, a description written for a model, input and output JSON Schemas,
// and the code that runs it on the REST API with the caller's token (docs/mcp.md "Tools").
#include <atomic>
#include <functional>
#include <optional>
#include <string>
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

struct Tool {
  std::string name, title, description;
  json input_schema, output_schema;
  json annotations;  // readOnlyHint, destructiveHint, idempotentHint, openWorldHint
  std::function<ToolResult(ToolCall&)> run;
};

// Every tool, in the order tools/list shows them.
const std::vector<Tool>& all_tools();
const Tool* find_tool(const std::string& name);

// Helpers for tool code.
ToolResult tool_error(std::string text);
ToolResult rest_error(const RestReply& r, const std::string& doing);  // "submit_kernel: HTTP 422 ..."
std::string json_text(const json& j);  // compact JSON, invalid UTF-8 replaced
json object_schema(json properties, std::vector<std::string> required = {});

// The tool groups (tools_*.cpp).
void add_read_tools(std::vector<Tool>& out);
void add_candidate_tools(std::vector<Tool>& out);
void add_review_tools(std::vector<Tool>& out);

}  // namespace kwb::mcp
