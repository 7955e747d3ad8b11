// Issue 16: the op set is open, so no code path of the workbench or its sandbox may be specific
// to one of the shipped ops. Every source file under workbench/ and sandbox/, comments aside,
// must not name any op of specs/ as a word (in code or in a string literal).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The text with // and /* */ comments blanked; string and character literals kept.
std::string without_comments(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '"' || s[i] == '\'') {
      if (s[i] == '"' && i > 0 && s[i - 1] == 'R') {  // raw string R"delim( ... )delim"
        size_t open = s.find('(', i);
        std::string close = ")" + s.substr(i + 1, open - i - 1) + "\"";
        size_t end = s.find(close, open);
        end = end == std::string::npos ? s.size() : end + close.size();
        out.append(s, i, end - i);
        i = end;
        continue;
      }
      char q = s[i];
      size_t j = i + 1;
      while (j < s.size() && s[j] != q && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, s.size());
      out.append(s, i, j - i);
      i = j;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
      out += ' ';
    } else {
      out += s[i++];
    }
  }
  return out;
}

TEST(OpNeutralSources, CommentStrippingKeepsCodeAndStrings) {
  EXPECT_EQ(without_comments("a // softmax\nb /* gemm */ c \"x // y\""), "a \nb   c \"x // y\"");
}

TEST(OpNeutralSources, NoWorkbenchOrSandboxSourceNamesAShippedOp) {
  const fs::path root = KWB_TEST_SOURCE_DIR;
  std::vector<std::string> ops;
  for (const auto& d : fs::directory_iterator(root / "specs"))
    if (fs::exists(d.path() / "spec.json")) ops.push_back(d.path().filename().string());
  ASSERT_GE(ops.size(), 9u) << "the shipped specs are missing";
  std::string alternatives;
  for (const auto& op : ops) alternatives += (alternatives.empty() ? "" : "|") + op;
  const std::regex word("\\b(" + alternatives + ")\\b");
  std::vector<std::string> found;
  size_t files = 0;
  for (const char* top : {"workbench", "sandbox"})
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".in"))
        continue;
      ++files;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      std::istringstream code(without_comments(text.str()));
      int line_no = 0;
      for (std::string line; std::getline(code, line);) {
        ++line_no;
        std::smatch m;
        if (std::regex_search(line, m, word))
          found.push_back(fs::relative(e.path(), root).string() + ":" + std::to_string(line_no) + ": " + m.str());
      }
    }
  EXPECT_GT(files, 100u);
  std::string list;
  for (const auto& f : found) list += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "op-specific code:" << list;
}

}  // namespace
