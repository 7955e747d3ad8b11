// A candidate seen as a task (tasks.hpp): the status mapping and the two wires' field names.
#include "mcp/tasks.hpp"

namespace kwb::mcp {

namespace {

bool comparison_pending(const json& c) {
  return c.contains("comparison") && c["comparison"].is_object() && c["comparison"].value("state", "") == "pending";
}

std::string status_of(const json& c) {
  std::string state = c.value("state", "");
  if (state == "cancelled" || c.value("cancel_requested", false)) return "cancelled";
  // Every verdict, accepted or not: the tool call succeeded, once its decision against the
  // incumbent (which follows the verdict) is in too.
  if (state == "done") return comparison_pending(c) ? "working" : "completed";
  return "working";
}

std::string message_of(const json& c, const std::string& status) {
  std::string id = c.value("id", "");
  if (status == "completed") {
    const json v = c.value("verdict", json::object());
    std::string line = c.value("status", v.value("status", std::string("done"))) + ": " + v.value("reason", std::string());
    return line.size() > 400 ? line.substr(0, 397) + "..." : line;
  }
  if (status == "cancelled")
    return c.value("state", "") == "cancelled" ? id + " was cancelled"
                                                 : id + ": cancellation requested; its evaluation stops after the current stage";
  if (comparison_pending(c)) {
    const json v = c.value("verdict", json::object());
    return id + ": " + c.value("status", v.value("status", std::string("done"))) +
           "; its comparison with the incumbent is running (the decision follows)";
  }
  return id + " is " + c.value("state", std::string("queued")) + " (no verdict yet)";
}

}  // namespace

bool has_tasks_extension(const RequestContext& ctx) {
  const json& caps = ctx.client_capabilities;
  return caps.is_object() && caps.contains("extensions") && caps["extensions"].is_object() &&
         caps["extensions"].contains(k_tasks_extension) && caps["extensions"][k_tasks_extension].is_object();
}

json task_view(const json& candidate, Era era) {
  std::string status = status_of(candidate);
  const bool modern = era == Era::modern;
  return {{"taskId", candidate.value("id", "")},
          {"status", status},
          {"statusMessage", message_of(candidate, status)},
          {"createdAt", candidate.value("created_at", "")},
          {"lastUpdatedAt", candidate.value("updated_at", candidate.value("created_at", ""))},
          {modern ? "ttlMs" : "ttl", nullptr},  // candidates stay in the workspace database
          {modern ? "pollIntervalMs" : "pollInterval", k_task_poll_interval_ms}};
}

bool task_terminal(const json& task) {
  std::string s = task.value("status", "");
  return s == "completed" || s == "failed" || s == "cancelled";
}

}  // namespace kwb::mcp
