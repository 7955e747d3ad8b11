#include "build/nvrtc_diagnostics.hpp"

#include <regex>
#include <string>

namespace kwb::build {

std::vector<core::Diagnostic> parse_nvrtc_log(std::string_view log, std::string_view compiled_name,
                                              std::string_view display_name) {
  static const std::regex line_re(
      R"(^(.+?)\((\d+)\): (catastrophic error|fatal error|error|warning|remark)(?: #[0-9]+(?:-D)?)?: (.*)$)");
  static const std::regex option_re(R"(^nvrtc: (error|warning): (.*)$)");
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    lines.emplace_back(log.substr(pos, end - pos));
    pos = end + 1;
  }
  std::vector<core::Diagnostic> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, option_re)) {
      out.push_back({std::string(display_name), 0, 0, m[1].str(), m[2].str(), ""});
      continue;
    }
    if (!std::regex_match(lines[i], m, line_re)) continue;
    core::Diagnostic d;
    d.file = m[1].str();
    if (d.file == compiled_name) d.file = std::string(display_name);
    d.line = std::stoi(m[2].str());
    std::string sev = m[3].str();
    d.severity = sev == "warning" ? "warning" : sev == "remark" ? "note" : "error";
    d.message = m[4].str();
    // The quoted source line is indented by two spaces; the caret line marks the column.
    if (i + 2 < lines.size()) {
      const std::string& caret = lines[i + 2];
      size_t c = caret.find('^');
      if (c != std::string::npos && c >= 2 && caret.find_first_not_of(' ') == c) d.col = int(c - 2 + 1);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kwb::build
