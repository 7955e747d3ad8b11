// list_attempts, get_lineage: what an agent tried (GET /v1/attempts?op=, GET
// /v1/candidates/{id}/lineage, docs/api.md "Lineage"), a tree through the parent links with the
// verified best and the latest marked, with the caller's token.
#include "mcp/tool.hpp"

namespace kwb::mcp {

namespace {

const json k_attempt_op = {{"type", "string"}, {"pattern", "^[a-z][a-z0-9_]{0,63}$"}, {"description", "an op name from list_ops"}};
const json k_attempt_id = {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}, {"description", "a candidate id, e.g. \"c-0123456789abcdef\""}};
const json k_attempt_hints = {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}};

std::string field(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// One line per attempt, indented under its parent: id, status (or state), speed, marks, note, reason.
void tree_lines(const json& node, int depth, std::string& out) {
  std::string line = std::string(size_t(2 * depth), ' ') + "- " + field(node, "id") + " ";
  line += node.value("status", json()).is_string() ? field(node, "status") : field(node, "state");
  const json g = node.value("geomean_vs_incumbent", json());
  if (g.is_number()) line += ", " + std::to_string(g.get<double>()).substr(0, 5) + "x vs incumbent";
  if (node.value("promotable", json()) == true) line += ", promotable";
  if (field(node, "comparison") == "pending") line += ", comparison running";
  if (node.value("best", false)) line += " [BEST]";
  if (node.value("latest", false)) line += " [LATEST]";
  if (!field(node, "note").empty()) line += " — note: " + field(node, "note").substr(0, 200);
  if (!field(node, "reason").empty()) line += " — " + field(node, "reason").substr(0, 300);
  out += "\n" + line;
  for (const auto& c : node.value("children", json::array())) tree_lines(c, depth + 1, out);
}

std::string forest_text(const std::string& title, const json& body) {
  std::string text = title + ": " + std::to_string(body.value("count", 0)) + " attempt(s)";
  if (body.value("truncated", false)) text += " (the newest " + std::to_string(body.value("count", 0)) + " of " +
                                              std::to_string(body.value("total", 0)) + ")";
  text += "; best: " + (field(body, "best").empty() ? std::string("none accepted yet") : field(body, "best")) +
          "; latest: " + (field(body, "latest").empty() ? std::string("none") : field(body, "latest"));
  for (const auto& r : body.value("roots", json::array())) tree_lines(r, 0, text);
  return text;
}

ToolResult list_attempts(ToolCall& call) {
  std::string op = call.args["op"];
  std::string q = "/v1/attempts?op=" + url_encode(op);
  if (call.args.contains("limit")) q += "&limit=" + std::to_string(call.args["limit"].get<int64_t>());
  auto r = call.rest.get(q);
  if (!r.ok()) return rest_error(r, "list_attempts " + op);
  return {forest_text("your attempts for " + op + ", each under its parent", r.body), r.body};
}

ToolResult get_lineage(ToolCall& call) {
  std::string id = call.args["id"];
  std::string q = "/v1/candidates/" + id + "/lineage";
  if (call.args.contains("limit")) q += "?limit=" + std::to_string(call.args["limit"].get<int64_t>());
  auto r = call.rest.get(q);
  if (!r.ok()) return rest_error(r, "get_lineage " + id);
  return {forest_text("the lineage of " + id + ", each attempt under its parent", r.body), r.body};
}

json forest_output_schema() {
  return json::parse(R"({"type": "object", "required": ["count", "total", "truncated", "best", "latest", "roots"],
    "properties": {"count": {"type": "integer"}, "total": {"type": "integer"}, "limit": {"type": "integer"},
      "truncated": {"type": "boolean"}, "best": {"type": ["string", "null"]}, "latest": {"type": ["string", "null"]},
      "roots": {"type": "array", "items": {"type": "object", "required": ["id", "parent", "state", "status", "best",
        "latest", "children"]}}}})");
}

}  // namespace

void add_attempt_tools(std::vector<Tool>& out) {
  out.push_back({"list_attempts", "Your attempts for an op",
                 "What you tried for an op: every candidate your token submitted for it, as a tree through their parent "
                 "links (submit_kernel's parent), each with its note, state, verdict status, the first line of the "
                 "verdict's reason, its speed-up against the incumbent and whether it is promotable. The verified best "
                 "(accepted; promotable first, then fastest against the incumbent) and the latest are marked. Call it "
                 "before a new attempt to remember what failed and why, and to build on the best.",
                 object_schema({{"op", k_attempt_op},
                                {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500},
                                           {"description", "at most this many, the newest (default 100)"}}}},
                               {"op"}),
                 forest_output_schema(), k_attempt_hints, list_attempts});
  out.push_back({"get_lineage", "A candidate's lineage",
                 "The tree of attempts a candidate belongs to: from its root (up the parent links) every descendant, "
                 "whoever submitted it, with the same fields as list_attempts and the verified best and the latest "
                 "marked.",
                 object_schema({{"id", k_attempt_id},
                                {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000},
                                           {"description", "at most this many nodes, the newest (default 200)"}}}},
                               {"id"}),
                 forest_output_schema(), k_attempt_hints, get_lineage});
}

}  // namespace kwb::mcp
