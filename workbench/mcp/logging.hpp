#pragma once
// Log messages to the client (notifications/message, docs/mcp.md "Logging"): sent only to a
// request that asked for them — on 2025-11-25 after logging/setLevel (the session's level), on
// 2026-07-28 with _meta["io.modelcontextprotocol/logLevel"] (that request's level) — on the
// request's own stream, at the level asked for and above. Tools that follow a candidate log
// its events: state changes (info), stages (debug), the verdict (notice when accepted, else
// warning).
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::mcp {

inline constexpr const char* k_meta_log_level = "io.modelcontextprotocol/logLevel";

// The syslog levels of MCP, least severe first: debug info notice warning error critical alert
// emergency. -1 when `v` is none of them.
int log_level_index(const nlohmann::json& v);
const char* log_level_name(int index);
inline constexpr int k_no_logging = -1;

// A candidate event's level and the notifications/message carrying it.
const char* event_log_level(const nlohmann::json& event);
nlohmann::json log_message(const std::string& level, const nlohmann::json& data);

}  // namespace kwb::mcp
