#include "build/nvcc_diagnostics.hpp"

#include <algorithm>
#include <regex>
#include <string>

#include "build/diagnostics.hpp"

namespace kwb::build {

namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

bool names_compiled_file(const std::string& file, std::string_view compiled_name) {
  const std::string name(compiled_name);
  return file == name || file == "./" + name || file == "/job/" + name;
}

// Column of the caret under an echoed line ("  <text>" then "  <spaces>^"), 0 when the two lines
// are not such a pair or the echoed text differs from the source line (EDG shows a tab as one
// space, so tabs compare as spaces).
int caret_column(const std::vector<std::string>& lines, size_t i, int line_no, const std::vector<std::string>& src) {
  if (i + 2 >= lines.size()) return 0;
  const std::string& echoed = lines[i + 1];
  const std::string& caret = lines[i + 2];
  size_t at = caret.find('^');
  if (!echoed.starts_with("  ") || at == std::string::npos || at < 2) return 0;
  if (caret.find_first_not_of(' ') != at || caret.find_first_not_of(' ', at + 1) != std::string::npos) return 0;
  if (!src.empty()) {
    if (line_no < 1 || static_cast<size_t>(line_no) > src.size()) return 0;
    std::string original = src[line_no - 1];
    std::replace(original.begin(), original.end(), '\t', ' ');
    if (echoed.substr(2) != original) return 0;
  }
  return static_cast<int>(at - 2) + 1;
}

bool same(const core::Diagnostic& a, const core::Diagnostic& b) {
  return a.file == b.file && a.line == b.line && a.col == b.col && a.severity == b.severity && a.message == b.message;
}

}  // namespace

std::vector<core::Diagnostic> parse_nvcc_diagnostics(std::string_view log, std::string_view compiled_name,
                                                     std::string_view display_name, std::string_view source) {
  // EDG: file(line): [catastrophic ]error|warning|remark[ #number[-D]]: message
  static const std::regex edg_re(
      R"(^(.+?)\((\d+)\): (catastrophic error|error|warning|remark|note)(?: #\d+(?:-[A-Z])?)?: (.*)$)");
  static const std::regex tool_re(R"(^(ptxas|nvlink|nvcc|fatbinary)\b[^:]*?(fatal|error|warning)\s*: (.*)$)");
  static const std::regex ld_re(R"(^(?:/usr/bin/)?ld(?:\.bfd|\.gold)?: (warning: )?(.*)$)");
  const std::vector<std::string> lines = split_lines(log);
  const std::vector<std::string> src = source.empty() ? std::vector<std::string>{} : split_lines(source);
  std::vector<core::Diagnostic> out;
  auto add = [&](core::Diagnostic d) {
    if (std::none_of(out.begin(), out.end(), [&](const core::Diagnostic& o) { return same(o, d); }))
      out.push_back(std::move(d));
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::smatch m;
    if (std::regex_match(line, m, edg_re)) {
      core::Diagnostic d;
      d.file = m[1].str();
      const bool ours = names_compiled_file(d.file, compiled_name);
      if (ours) d.file = std::string(display_name);
      d.line = std::stoi(m[2].str());
      d.col = caret_column(lines, i, d.line, ours ? src : std::vector<std::string>{});
      const std::string sev = m[3].str();
      d.severity = sev == "catastrophic error" || sev == "error" ? "error" : sev == "warning" ? "warning" : "note";
      d.message = m[4].str();
      add(std::move(d));
      continue;
    }
    if (std::regex_match(line, m, tool_re)) {
      core::Diagnostic d;
      d.file = std::string(display_name);
      d.severity = m[2].str() == "warning" ? "warning" : "error";
      d.message = m[1].str() + ": " + m[3].str();
      add(std::move(d));
      continue;
    }
    if (std::regex_match(line, m, ld_re)) {
      core::Diagnostic d;
      d.file = std::string(display_name);
      d.severity = m[1].matched ? "warning" : "error";
      d.message = "ld: " + m[2].str();
      add(std::move(d));
      continue;
    }
    // The host compiler's format; parse_diagnostics maps the compiled name the same way.
    for (auto& d : parse_diagnostics(line, compiled_name, display_name)) add(std::move(d));
  }
  return out;
}

}  // namespace kwb::build
