#include "build/vectorization_remarks.hpp"

#include <algorithm>
#include <regex>

namespace kwb::build {

namespace {

constexpr size_t k_max_reasons = 3;  // per loop
constexpr size_t k_max_line = 400;

struct Remark {
  int line = 0, col = 0;
  std::string text;
  bool loop = false;  // "couldn't vectorize loop" / "loop not vectorized": the loop's own line
};

bool names_file(const std::string& file, std::string_view compiled) {
  return file == compiled || file == "./" + std::string(compiled) || file == "/job/" + std::string(compiled);
}

// g++: "candidate.cpp:22:12: missed: couldn't vectorize loop" / "...: missed: not vectorized: X"
// clang++: "candidate.cpp:11:3: remark: loop not vectorized [-Rpass-missed=loop-vectorize]"
std::vector<Remark> remarks(std::string_view log, std::string_view compiled) {
  static const std::regex re(R"(^(.+?):(\d+):(\d+): (missed|remark): (.*)$)");
  std::vector<Remark> out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string_view::npos) end = log.size();
    std::string line(log.substr(pos, std::min(end - pos, k_max_line)));
    pos = end + 1;
    std::smatch m;
    if (!std::regex_match(line, m, re) || !names_file(m[1].str(), compiled)) continue;
    Remark r;
    try {
      r.line = std::stoi(m[2].str());
      r.col = std::stoi(m[3].str());
    } catch (...) {
      continue;
    }
    r.text = m[5].str();
    if (auto tag = r.text.find(" [-Rpass"); tag != std::string::npos) r.text.erase(tag);
    if (m[4].str() == "remark" && r.text.find("vectoriz") == std::string::npos) continue;
    r.loop = r.text == "couldn't vectorize loop" || r.text.starts_with("loop not vectorized");
    if (r.text.starts_with("not vectorized: ")) r.text.erase(0, 16);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<std::string> vectorization_remark_flags(const std::string& identity) {
  if (identity.find("clang") != std::string::npos) return {"-Rpass-missed=loop-vectorize"};
  return {"-fopt-info-vec-missed"};
}

std::string vectorization_remark_lines(std::string_view log, std::string_view compiled_name) {
  std::string out;
  for (const auto& r : remarks(log, compiled_name))
    out += std::string(compiled_name) + ":" + std::to_string(r.line) + ":" + std::to_string(r.col) + ": missed: " +
           (r.loop ? "couldn't vectorize loop" : "not vectorized: " + r.text) + "\n";
  return out;
}

std::vector<core::Diagnostic> parse_vectorization_remarks(std::string_view log, std::string_view compiled_name,
                                                          std::string_view display_name) {
  std::vector<core::Diagnostic> out;
  std::vector<std::vector<std::string>> reasons;
  auto at_line = [&](int line) -> int {
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].line == line) return int(i);
    return -1;
  };
  int current = -1;  // the loop the next reason belongs to (g++ prints the loop, then why)
  for (const auto& r : remarks(log, compiled_name)) {
    int i = at_line(r.loop ? r.line : current >= 0 ? out[size_t(current)].line : r.line);
    if (i < 0) {
      if (out.size() >= k_max_vectorization_remarks) continue;
      out.push_back({std::string(display_name), r.line, r.col, "note", "", "vectorization"});
      reasons.emplace_back();
      i = int(out.size() - 1);
    }
    if (r.loop) {
      current = i;
      continue;
    }
    std::string why = r.line == out[size_t(i)].line ? r.text : r.text + " (line " + std::to_string(r.line) + ")";
    auto& list = reasons[size_t(i)];
    if (std::find(list.begin(), list.end(), why) == list.end() && list.size() < k_max_reasons) list.push_back(why);
    current = -1;  // g++ gives one reason right after the loop; later ones stand alone
  }
  for (size_t i = 0; i < out.size(); ++i) {
    std::string msg = "loop not vectorized";
    for (size_t k = 0; k < reasons[i].size(); ++k) msg += (k == 0 ? ": " : "; ") + reasons[i][k];
    out[i].message = msg;
  }
  return out;
}

}  // namespace kwb::build
