#pragma once
// Splitting the text of `// kwb:` directives (spec/launch_plan.cpp, spec/tune_space.cpp).
#include <cctype>
#include <string_view>
#include <vector>

namespace kwb::spec::plan_text {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits at commas outside parentheses, each part trimmed.
inline std::vector<std::string_view> split_top(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')') --depth;
    else if (s[i] == ',' && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

}  // namespace kwb::spec::plan_text
