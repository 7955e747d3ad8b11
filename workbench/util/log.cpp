#include "util/log.hpp"

#include <atomic>
#include <chrono>
#include <ctime>

#include <fmt/format.h>
#include <spdlog/formatter.h>

namespace kwb::util {

namespace {

std::atomic<LogFormat> g_format{LogFormat::text};

// Marks a payload that log_event built as the members of a JSON object (after the first '{').
constexpr std::string_view k_fields_mark = "\x1f{";

std::string utc_millis(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t s = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, int(ms % 1000));
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string_view payload(msg.payload.data(), msg.payload.size());
    const auto level = spdlog::level::to_string_view(msg.level);
    std::string line = fmt::format(R"({{"ts":"{}","level":"{}",)", utc_millis(msg.time),
                                   std::string_view(level.data(), level.size()));
    if (payload.starts_with(k_fields_mark))
      line += payload.substr(k_fields_mark.size());  // "\"event\":...}"
    else
      line += "\"msg\":" + nlohmann::json(std::string(payload)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "}";
    line += "\n";
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

std::string text_value(const nlohmann::ordered_json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    const bool plain = !s.empty() && s.find_first_of(" \"=\t\n") == std::string::npos;
    return plain ? s : nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return v.dump();
}

}  // namespace

std::optional<LogFormat> parse_log_format(std::string_view name) {
  if (name == "text") return LogFormat::text;
  if (name == "json") return LogFormat::json;
  return std::nullopt;
}

void set_log_format(LogFormat format) {
  g_format = format;
  if (format == LogFormat::json) spdlog::set_formatter(std::make_unique<JsonFormatter>());  // text: spdlog's default
}

LogFormat log_format() { return g_format; }

void log_event(spdlog::level::level_enum level, std::string_view event, const nlohmann::ordered_json& fields) {
  if (!spdlog::should_log(level)) return;
  if (g_format == LogFormat::json) {
    nlohmann::ordered_json j = {{"event", event}};
    for (const auto& [k, v] : fields.items())
      if (!v.is_null()) j[k] = v;
    const std::string body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    spdlog::log(level, "{}{}", k_fields_mark, std::string_view(body).substr(1));
    return;
  }
  std::string text(event);
  for (const auto& [k, v] : fields.items())
    if (!v.is_null()) text += " " + k + "=" + text_value(v);
  spdlog::log(level, "{}", text);
}

}  // namespace kwb::util
