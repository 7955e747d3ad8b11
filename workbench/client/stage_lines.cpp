#include "client/stage_lines.hpp"

#include <utility>

#include <fmt/format.h>

namespace kwb::client {

namespace {

std::string line(const std::string& what, const std::string& outcome, const std::string& detail) {
  std::string s = fmt::format("  {:<9} {:<7} {}", what, outcome, detail);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string shorten(std::string s, size_t n = 160) {
  if (s.size() > n) s = s.substr(0, n - 3) + "...";
  return s;
}

}  // namespace

std::optional<std::string> StageLines::on_event(const CandidateEvent& e) {
  if (e.kind == "stage") {
    std::string stage = e.data.value("stage", std::string("?"));
    if (!e.data.value("finished", false)) {
      m_open = stage;
      return std::nullopt;
    }
    m_open.clear();
    return line(stage, "done", e.data.value("detail", std::string()));
  }
  if (e.kind == "verdict") {
    if (m_open.empty()) return std::nullopt;
    std::string stage = std::exchange(m_open, std::string());
    return line(stage, "failed",
                shorten(e.data.value("status", std::string()) + ": " + e.data.value("reason", std::string())));
  }
  if (e.kind == "state") {
    std::string state = e.data.value("state", std::string());
    if (state == "queued") return line("queued", "", shorten(e.data.value("detail", std::string())));
    if (state == "cancelled") {
      std::string stage = std::exchange(m_open, std::string());
      return line(stage.empty() ? "cancelled" : stage, stage.empty() ? "" : "cancelled", "");
    }
  }
  return std::nullopt;
}

}  // namespace kwb::client
