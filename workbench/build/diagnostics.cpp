#include "build/diagnostics.hpp"

#include <regex>
#include <string>

namespace kwb::build {

std::vector<core::Diagnostic> parse_diagnostics(std::string_view log, std::string_view compiled_name,
                                                std::string_view display_name) {
  static const std::regex line_re(R"(^(.+?):(\d+):(\d+): (fatal error|error|warning|note): (.*)$)");
  std::vector<core::Diagnostic> out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    std::string line(log.substr(pos, end - pos));
    pos = end + 1;
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) continue;
    core::Diagnostic d;
    d.file = m[1].str();
    if (d.file == compiled_name || d.file == "./" + std::string(compiled_name) ||
        d.file == "/job/" + std::string(compiled_name))
      d.file = std::string(display_name);
    d.line = std::stoi(m[2].str());
    d.col = std::stoi(m[3].str());
    d.severity = m[4].str() == "fatal error" ? "error" : m[4].str();
    d.message = m[5].str();
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kwb::build
