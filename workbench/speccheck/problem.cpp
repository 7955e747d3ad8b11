#include "speccheck/problem.hpp"

namespace kwb::speccheck {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "?";
}

std::string format_problem(const Problem& p) {
  std::string out = p.file + ": ";
  if (!p.field.empty()) out += p.field + ": ";
  return out + severity_name(p.severity) + ": " + p.message;
}

nlohmann::ordered_json problems_json(const std::vector<Problem>& problems) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& p : problems)
    out.push_back({{"file", p.file}, {"field", p.field}, {"severity", severity_name(p.severity)}, {"message", p.message}});
  return out;
}

size_t count(const std::vector<Problem>& problems, Severity s) {
  size_t n = 0;
  for (const auto& p : problems) n += p.severity == s;
  return n;
}

}  // namespace kwb::speccheck
