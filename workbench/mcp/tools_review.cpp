// promote, reject: POST /v1/candidates/{id}/promote|reject — a reviewer's or admin's token; an
// agent's is refused by the REST API (403), and the tool says so.
#include "mcp/tool.hpp"

namespace kwb::mcp {

namespace {

const json k_id = {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}, {"description", "a candidate id, e.g. \"c-0123456789abcdef\""}};

ToolResult promote(ToolCall& call) {
  std::string id = call.args["id"];
  auto r = call.rest.post("/v1/candidates/" + id + "/promote", json::object());
  if (!r.ok()) return rest_error(r, "promote " + id);
  std::string text = "promoted: " + id + " is the incumbent now";
  if (r.body.contains("commit") && r.body["commit"].is_string()) text += " (library commit " + r.body["commit"].get<std::string>() + ")";
  return {text, r.body};
}

ToolResult reject(ToolCall& call) {
  std::string id = call.args["id"];
  auto r = call.rest.post("/v1/candidates/" + id + "/reject", {{"reason", call.args["reason"]}});
  if (!r.ok()) return rest_error(r, "reject " + id);
  return {"rejected: " + id, r.body};
}

}  // namespace

void add_review_tools(std::vector<Tool>& out) {
  json writes = {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false}, {"openWorldHint", false}};
  out.push_back({"promote", "Promote a candidate (reviewer)",
                 "Reviewer or admin token only: makes an accepted candidate the library's incumbent as one git commit, if the "
                 "promotion rule holds (correct everywhere, faster than the incumbent on a bench workload in the interleaved "
                 "comparison, no workload slower past the limit, all bench workloads timed). An agent token is refused (403).",
                 object_schema({{"id", k_id}}, {"id"}), {{"type", "object"}}, writes, promote});
  out.push_back({"reject", "Reject a candidate (reviewer)",
                 "Reviewer or admin token only: records that a candidate will not be promoted, with the reason. A candidate is "
                 "decided once. An agent token is refused (403).",
                 object_schema({{"id", k_id}, {"reason", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4096}}}}, {"id", "reason"}),
                 {{"type", "object"}}, writes, reject});
}

}  // namespace kwb::mcp
