#include "mcp/logging.hpp"

#include "mcp/json_rpc.hpp"

namespace kwb::mcp {

namespace {
const char* k_levels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
}

int log_level_index(const nlohmann::json& v) {
  if (!v.is_string()) return -1;
  for (int i = 0; i < 8; ++i)
    if (v == k_levels[i]) return i;
  return -1;
}

const char* log_level_name(int index) { return index >= 0 && index < 8 ? k_levels[index] : "info"; }

const char* event_log_level(const nlohmann::json& event) {
  std::string kind = event.value("kind", "");
  if (kind == "verdict") return event.value("data", nlohmann::json::object()).value("status", "") == "accepted" ? "notice" : "warning";
  if (kind == "stage" || kind == "progress") return "debug";
  return "info";  // state, decision, ci
}

nlohmann::json log_message(const std::string& level, const nlohmann::json& data) {
  return make_notification("notifications/message", {{"level", level}, {"logger", "kwb"}, {"data", data}});
}

}  // namespace kwb::mcp
