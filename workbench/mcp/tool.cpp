#include "mcp/tool.hpp"

namespace kwb::mcp {

const std::vector<Tool>& all_tools() {
  static const std::vector<Tool> tools = [] {
    std::vector<Tool> t;
    add_read_tools(t);
    add_candidate_tools(t);
    add_attempt_tools(t);
    add_review_tools(t);
    return t;
  }();
  return tools;
}

const Tool* find_tool(const std::string& name) {
  for (const auto& t : all_tools())
    if (t.name == name) return &t;
  return nullptr;
}

ToolResult tool_error(std::string text) { return {std::move(text), nullptr, true}; }

ToolResult rest_error(const RestReply& r, const std::string& doing) { return tool_error(doing + ": " + r.error_line()); }

std::string json_text(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json object_schema(json properties, std::vector<std::string> required) {
  json s = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

}  // namespace kwb::mcp
