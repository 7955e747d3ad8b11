// tools/list and tools/call: the tool registry (tool.hpp) on the protocol. A tool that fails
// answers isError with its reason (a bad argument, a refused REST call); an unknown tool is
// -32602.
#include <exception>

#include "mcp/protocol.hpp"
#include "mcp/schema_check.hpp"
#include "mcp/tool.hpp"

namespace kwb::mcp {

MethodResult list_tools(const RequestContext&) {
  json tools = json::array();
  for (const auto& t : all_tools())
    tools.push_back({{"name", t.name},
                     {"title", t.title},
                     {"description", t.description},
                     {"inputSchema", t.input_schema},
                     {"outputSchema", t.output_schema},
                     {"annotations", t.annotations}});
  return json{{"tools", tools}};
}

namespace {

json tool_result(const ToolResult& r) {
  json out = {{"content", json::array({{{"type", "text"}, {"text", r.text}}})}, {"isError", r.is_error}};
  if (!r.structured.is_null()) out["structuredContent"] = r.structured;
  return out;
}

}  // namespace

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
  json args = params.contains("arguments") ? params["arguments"] : json::object();
  if (args.is_null()) args = json::object();
  if (!args.is_object()) return json(tool_result(tool_error(name + ": arguments must be an object")));
  if (auto problem = schema_problem(tool->input_schema, args)) return json(tool_result(tool_error(name + ": " + *problem)));
  if (!ctx.rest) return RpcError{code::internal_error, "no REST API bound to this request", {}};

  ToolCall call{args, *ctx.rest};
  call.cancelled = ctx.cancelled;
  json token = params.value("_meta", json::object()).value("progressToken", json());
  if ((token.is_string() || token.is_number_integer()) && ctx.notify) {
    call.wants_progress = true;
    call.progress = [token, &ctx](double progress, const std::string& message) {
      ctx.notify(make_notification("notifications/progress", {{"progressToken", token}, {"progress", progress}, {"message", message}}));
    };
  }
  try {
    return json(tool_result(tool->run(call)));
  } catch (const std::exception& e) {  // a tool bug must not end the request without an answer
    return json(tool_result(tool_error(name + ": internal error: " + e.what())));
  }
}

}  // namespace kwb::mcp
