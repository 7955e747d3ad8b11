#pragma once
// The daemon's log (spdlog's default logger): plain lines, or JSON lines (`kwb serve --log-format
// json`). Events with fields go through log_event, so that both formats carry the same fields:
//   text: [2026-12-01 18:34:07.615] [info] http request=r-7 method=POST path=/v1/candidates status=202 ms=3.1
//   json: {"ts":"2026-12-01T18:34:07.615Z","level":"info","event":"http","request":"r-7","method":"POST",...}
// A message logged without fields becomes {"ts":...,"level":...,"msg":"..."} in JSON.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace kwb::util {

enum class LogFormat { text, json };

// "text" or "json"; anything else is an error naming both.
std::optional<LogFormat> parse_log_format(std::string_view name);
// Installs the format on spdlog's default logger (every thread's later messages).
void set_log_format(LogFormat format);
LogFormat log_format();

// One event with fields (values: strings, numbers, booleans; nulls are left out). Not formatted
// when the level is filtered out.
void log_event(spdlog::level::level_enum level, std::string_view event, const nlohmann::ordered_json& fields);

}  // namespace kwb::util
