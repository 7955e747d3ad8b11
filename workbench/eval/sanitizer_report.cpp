// eval/sanitizer_report.hpp: compute-sanitizer's text into findings, counts and diagnostics.
// A report is a header line ("========= Invalid __global__ write of size 4 bytes") followed by
// indented lines ("=========     at k(float*)+0x70 in file.cu:7", "by thread (0,0,0) in block
// (0,0,0)", "Address 0x... is out of bounds", host frames). Both location forms are read: the
// current "at KERNEL+0xOFF in FILE:LINE" (the "in" part may wrap onto its own line) and the older
// "at 0xOFF in FILE:LINE:KERNEL".
#include "eval/sanitizer_report.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>

#include <fmt/format.h>

namespace kwb::eval {

namespace {
namespace san {

struct Line {
  std::string text;  // without the "=========" prefix and the one space after it
  bool indented = false;  // a continuation of the report above it
};

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::vector<Line> lines_of(std::string_view text) {
  std::vector<std::string_view> raw;
  for (size_t i = 0; i <= text.size();) {
    size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    raw.push_back(text.substr(i, e - i));
    i = e + 1;
  }
  bool prefixed = std::ranges::any_of(raw, [](std::string_view l) { return l.starts_with("========="); });
  std::vector<Line> out;
  for (auto l : raw) {
    if (prefixed) {
      if (!l.starts_with("=========")) continue;
      while (!l.empty() && l.front() == '=') l.remove_prefix(1);
      if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
    }
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    bool indented = !l.empty() && std::isspace(static_cast<unsigned char>(l.front()));
    std::string t = trim(l);
    if (!t.empty()) out.push_back({t, indented});
  }
  return out;
}

int64_t number(const std::string& digits) {
  std::string d;
  for (char c : digits)
    if (std::isdigit(static_cast<unsigned char>(c))) d += c;
  return d.empty() || d.size() > 18 ? 0 : std::stoll(d);
}

// "KERNEL+0x70 in FILE:LINE", "0xd80 in FILE:LINE:KERNEL", "KERNEL+0x70", "0x1b8 in KERNEL".
void read_location(const std::string& at, std::string& kernel, std::string& file, int& line) {
  static const std::regex k_new(R"(^(.+?)\+0x[0-9a-fA-F]+ in (.+):(\d+)$)");
  static const std::regex k_old(R"(^0x[0-9a-fA-F]+ in (.+?):(\d+):(.+)$)");
  static const std::regex k_no_line(R"(^(.+?)\+0x[0-9a-fA-F]+$)");
  static const std::regex k_old_no_line(R"(^0x[0-9a-fA-F]+ in (.+)$)");
  std::smatch m;
  if (std::regex_match(at, m, k_new)) {
    kernel = m[1], file = m[2], line = int(number(m[3]));
  } else if (std::regex_match(at, m, k_old)) {
    file = m[1], line = int(number(m[2])), kernel = m[3];
  } else if (std::regex_match(at, m, k_no_line)) {
    kernel = m[1];
  } else if (std::regex_match(at, m, k_old_no_line)) {
    kernel = m[1];
  }
}

std::string hazard_type(std::string_view first, std::string_view second) {
  bool w1 = first == "Write", w2 = second == "Write";
  return w1 && w2 ? "WAW" : w1 ? "RAW" : w2 ? "WAR" : "RAR";
}

std::string lower(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// One report: its header and continuation lines, read into a finding. False: not a report.
bool read_report(std::string_view tool, const std::string& head, const std::vector<std::string>& body,
                 core::SanitizerFinding& f) {
  static const std::regex k_invalid(R"(^Invalid (__\w+__|\w+) (read|write|atomic)\w* of size ([\d,]+) bytes?)");
  static const std::regex k_uninit(R"(^Uninitialized (__\w+__|\w+) memory (read|write)\w* of size ([\d,]+) bytes?)");
  static const std::regex k_race(
      R"(^(Error|Warning): Race reported between (\w+) access at (.+?) and (\w+) access at (.+?)(?: \[([\d,]+) hazards?\])?$)");
  static const std::regex k_hazard(R"(^(Error|Warning): Potential (\w+) hazard detected at (__\w+__ )?(0x[0-9a-fA-F]+) in block \(([^)]*)\))");
  static const std::regex k_barrier(R"(^Barrier error detected\.?\s*(.*)$)");
  static const std::regex k_api(R"(^Program hit (\S+) \(error (\d+)\) due to \"(.*)\" on CUDA API call to ([^.\s]+))");
  std::string joined = head;  // the header with wrapped "and ... access at" / "in FILE:LINE" lines
  for (const auto& b : body)
    if (b.starts_with("and ") && b.find(" access at ") != std::string::npos) joined += " " + b;
  f.tool = std::string(tool);
  f.severity = "error";
  f.message = head;
  std::smatch m;
  auto strip = [](std::string s) {  // "__global__" -> "global"
    while (!s.empty() && s.front() == '_') s.erase(0, 1);
    while (!s.empty() && s.back() == '_') s.pop_back();
    return s;
  };
  if (std::regex_search(head, m, k_invalid)) {
    f.kind = fmt::format("invalid {} {}", strip(m[1]), std::string(m[2]));
    f.access_size_bytes = number(m[3]);
  } else if (std::regex_search(head, m, k_uninit)) {
    f.kind = fmt::format("uninitialized {} {}", strip(m[1]), std::string(m[2]));
    f.access_size_bytes = number(m[3]);
  } else if (std::regex_match(joined, m, k_race)) {
    f.severity = lower(m[1]);
    f.kind = fmt::format("shared memory hazard ({})", hazard_type(std::string(m[2]), std::string(m[4])));
    read_location(m[3], f.kernel, f.file, f.line);
    std::string other_kernel;
    read_location(m[5], other_kernel, f.other_file, f.other_line);
    if (m[6].matched) f.hazards = number(m[6]);
    f.message = joined;
  } else if (std::regex_search(head, m, k_hazard)) {
    f.severity = lower(m[1]);
    f.kind = fmt::format("shared memory hazard ({})", std::string(m[2]));
    f.address = m[4];
    f.block = "(" + std::string(m[5]) + ")";
  } else if (std::regex_search(head, m, k_barrier)) {
    f.kind = "barrier error";
    f.detail = m[1];
  } else if (std::regex_search(joined, m, k_api)) {
    f.kind = "CUDA API error";
    f.detail = fmt::format("{} (error {}: {}) from {}", std::string(m[1]), std::string(m[2]), std::string(m[3]),
                           std::string(m[4]));
  } else {
    bool located = std::ranges::any_of(body, [](const std::string& b) { return b.starts_with("at "); });
    if (!located) return false;
    f.kind = lower(head.substr(0, std::min(head.find(" of size"), head.find('.'))));
  }
  static const std::regex k_thread(R"(by thread \(([^)]*)\) in block \(([^)]*)\))");
  static const std::regex k_access(R"(^(Write|Read) Thread \(([^)]*)\) at (.+)$)");
  static const std::regex k_address(R"(^Address (0x[0-9a-fA-F]+)\s*(.*)$)");
  for (size_t i = 0; i < body.size(); ++i) {
    const std::string& b = body[i];
    if (b.starts_with("Saved host backtrace") || b.starts_with("Host Frame") || b.starts_with("Device Frame")) break;
    if (b.starts_with("at ") && f.file.empty() && f.kernel.empty()) {
      std::string at = b.substr(3);
      if (i + 1 < body.size() && body[i + 1].starts_with("in ")) at += " " + body[++i];  // wrapped
      read_location(at, f.kernel, f.file, f.line);
    } else if (std::regex_search(b, m, k_thread)) {
      f.thread = "(" + std::string(m[1]) + ")", f.block = "(" + std::string(m[2]) + ")";
    } else if (std::regex_match(b, m, k_access)) {  // racecheck's hazard form: one line per access
      if (f.file.empty()) {
        f.thread = "(" + std::string(m[2]) + ")";
        read_location(m[3], f.kernel, f.file, f.line);
      } else {
        std::string k;
        read_location(m[3], k, f.other_file, f.other_line);
      }
    } else if (std::regex_match(b, m, k_address)) {
      f.address = m[1];
      f.detail = m[2];
    } else if (b.starts_with("and is ") || b.starts_with("Current Value")) {
      f.detail += (f.detail.empty() ? "" : " ") + b;
    }
  }
  return true;
}

bool is_summary(const std::string& l) {
  return l.starts_with("ERROR SUMMARY:") || l.starts_with("RACECHECK SUMMARY:") || l.starts_with("LEAK SUMMARY:");
}

}  // namespace san
}  // namespace

core::SanitizerRun parse_sanitizer_report(std::string_view tool, std::string_view text) {
  core::SanitizerRun run;
  run.tool = std::string(tool);
  auto lines = san::lines_of(text);
  static const std::regex k_errors(R"(^ERROR SUMMARY: ([\d,]+) errors?)");
  static const std::regex k_races(R"(^RACECHECK SUMMARY: [\d,]+ hazards? displayed \(([\d,]+) errors?, ([\d,]+) warnings?\))");
  std::optional<int64_t> errors, race_errors, race_warnings;
  std::string tool_error;
  int seen_errors = 0, seen_warnings = 0, summaries = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& head = lines[i].text;
    if (lines[i].indented) continue;
    std::smatch m;
    if (std::regex_search(head, m, k_errors)) {
      errors = san::number(m[1]);
      ++summaries;
      continue;
    }
    if (std::regex_search(head, m, k_races)) {
      race_errors = san::number(m[1]), race_warnings = san::number(m[2]);
      continue;
    }
    std::vector<std::string> body;
    for (size_t j = i + 1; j < lines.size() && lines[j].indented; ++j) body.push_back(lines[j].text);
    core::SanitizerFinding f;
    if (san::is_summary(head) || !san::read_report(tool, head, body, f)) {
      bool benign = head.find("didn't terminate successfully") != std::string::npos ||
                    head.find("returned an error") != std::string::npos;
      if ((head.starts_with("Error:") || head.starts_with("Internal Sanitizer Error")) && !benign && tool_error.empty())
        tool_error = head;
      continue;
    }
    (f.severity == "warning" ? seen_warnings : seen_errors)++;
    if (run.findings.size() < k_sanitizer_findings_kept) run.findings.push_back(std::move(f));
    i += body.size();
  }
  if (race_errors) errors = race_errors;
  run.warning_count = int(race_warnings.value_or(seen_warnings));
  if (!errors) {
    run.status = "failed";
    run.error_count = seen_errors;
    if (!tool_error.empty())
      run.reason = "compute-sanitizer " + run.tool + " failed: " + tool_error;
    else if (lines.empty())
      run.reason = "compute-sanitizer " + run.tool + " wrote nothing (it did not start, or its log was not written)";
    else
      run.reason = "compute-sanitizer " + run.tool + "'s report has no ERROR SUMMARY line: cut short (a time limit, "
                   "a killed process) or the tool did not run the program; its last line: " + lines.back().text;
    return run;
  }
  // One run writes one summary. More (a candidate's host code in the same sandbox can write to the
  // log too, docs/profiles.md "Where the tools run"), or reports under a summary of none, is not clean.
  if (summaries > 1) {
    run.status = "failed";
    run.error_count = seen_errors;
    run.reason = fmt::format("compute-sanitizer {}'s report has {} ERROR SUMMARY lines where one run writes one: "
                             "something other than the tool wrote to it",
                             run.tool, summaries);
    return run;
  }
  run.error_count = std::max(int(*errors), seen_errors);
  if (run.error_count == 0 && !tool_error.empty()) {  // a summary of nothing: the program never ran
    run.status = "failed";
    run.reason = "compute-sanitizer " + run.tool + " failed: " + tool_error;
    return run;
  }
  run.status = run.error_count > 0 ? "findings" : "clean";
  return run;
}

std::vector<core::Diagnostic> sanitizer_diagnostics(const core::SanitizerRun& run) {
  std::vector<core::Diagnostic> out;
  bool device_finding = std::ranges::any_of(run.findings, [](const auto& f) { return f.kind != "CUDA API error"; });
  for (const auto& f : run.findings) {
    if (device_finding && f.kind == "CUDA API error") continue;
    std::string msg = f.tool + ": " + f.kind;
    if (f.access_size_bytes) msg += fmt::format(" of {} bytes", *f.access_size_bytes);
    if (f.other_line > 0)
      msg += fmt::format(" between line {} and {}line {}", f.line,
                         f.other_file.empty() || f.other_file == f.file ? "" : f.other_file + ":", f.other_line);
    if (f.hazards) msg += fmt::format(" ({} hazards)", *f.hazards);
    if (!f.thread.empty()) msg += " by thread " + f.thread;
    if (!f.block.empty()) msg += " in block " + f.block;
    if (!f.address.empty()) msg += " at address " + f.address;
    if (!f.detail.empty()) msg += " (" + f.detail + ")";
    if (!f.kernel.empty()) msg += " in kernel " + f.kernel;
    out.push_back({f.file, f.line, 0, f.severity.empty() ? "error" : f.severity, msg, f.tool});
  }
  return out;
}

}  // namespace kwb::eval
