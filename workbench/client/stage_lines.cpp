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
    const std::string status = e.data.value("status", std::string());
    if (m_open.empty()) {
      // Verdict first, decision second: say the verdict is in while the comparison runs.
      if (e.data.value("comparison", std::string()) != "pending") return std::nullopt;
      return line("verdict", status, "comparison with the incumbent running");
    }
    std::string stage = std::exchange(m_open, std::string());
    return line(stage, "failed", shorten(status + ": " + e.data.value("reason", std::string())));
  }
  if (e.kind == "comparison") {
    const bool promotable = e.data.value("promotable", false);
    return line("decision", promotable ? "win" : "no win", shorten(e.data.value("reason", std::string())));
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
