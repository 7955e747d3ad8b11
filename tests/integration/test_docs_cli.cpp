// Docs that agree with the binaries (issue 17, point 13): every `kwb SUBCOMMAND --flag` written in
// README.md and docs/*.md names a subcommand that exists and a flag its --help lists.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "support.hpp"

namespace {

using namespace kwb::test;

// The "Subcommands:" section of a CLI11 help text: the names listed there.
std::set<std::string> subcommands_in(const std::string& help) {
  std::set<std::string> out;
  auto at = help.find("\nSubcommands:");
  if (at == std::string::npos) return out;
  ++at;
  std::istringstream lines(help.substr(help.find('\n', at) + 1));
  std::string line;
  static const std::regex item(R"(^\s+([a-z][a-z-]*)\s)");
  std::smatch m;
  while (std::getline(lines, line)) {
    if (line.empty() || !std::isspace(static_cast<unsigned char>(line[0]))) break;
    if (std::regex_search(line, m, item)) out.insert(m[1]);
  }
  return out;
}

const std::string& help_of(const std::string& path) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(path);
  if (it == cache.end())
    it = cache.emplace(path, run_command((bin_dir() / "kwb").string() + " " + path + " --help 2>&1").out).first;
  return it->second;
}

struct Mention {
  std::string file;
  int line;
  std::string text;
};

TEST(DocsAgreeWithBinaries, EveryDocumentedSubcommandAndFlagExists) {
  std::vector<std::filesystem::path> files = {source_dir() / "README.md"};
  for (const auto& f : std::filesystem::directory_iterator(source_dir() / "docs"))
    if (f.path().extension() == ".md") files.push_back(f.path());
  const auto top = subcommands_in(help_of(""));
  ASSERT_TRUE(top.count("submit") && top.count("eval")) << help_of("");
  // `kwb SUB [NESTED] rest-of-command` (a path such as bin/kwb x/y is not a command).
  static const std::regex command(R"((?:^|[\s(/])kwb ([a-z][a-z-]*)(?![/\w.-])((?: [a-z][a-z-]*)?)([^|;&]*))");
  static const std::regex flag(R"((?:^|[\s\[(/])(--[a-z][a-z0-9-]*))");
  int checked = 0;
  std::vector<std::string> problems;
  for (const auto& file : files) {
    std::istringstream text(read_text(file));
    std::string line;
    int n = 0;
    bool fenced = false;
    while (std::getline(text, line)) {
      ++n;
      const std::string where = file.filename().string() + ":" + std::to_string(n);
      if (line.find_first_not_of(' ') != std::string::npos && line.compare(line.find_first_not_of(' '), 3, "```") == 0) {
        fenced = !fenced;
        continue;
      }
      // Commands are read where the docs show code: fenced blocks, indented lines, `code spans`.
      std::vector<std::string> code;
      if (fenced || line.starts_with("    ")) {
        code.push_back(line);
      } else {
        static const std::regex span("`([^`]*)`");
        for (std::sregex_iterator s(line.begin(), line.end(), span), e; s != e; ++s) code.push_back((*s)[1]);
      }
      for (const auto& c : code)
      for (std::sregex_iterator it(c.begin(), c.end(), command), end; it != end; ++it) {
        std::string sub = (*it)[1], nested = (*it)[2], rest = (*it)[3];
        if (!top.count(sub)) {
          problems.push_back(where + ": `kwb " + sub + "` is not a subcommand");
          continue;
        }
        std::string path = sub;
        auto nested_names = subcommands_in(help_of(sub));
        if (!nested.empty() && nested_names.count(nested.substr(1))) path += nested;
        else rest = nested + rest;
        const std::string& help = help_of(path);
        for (std::sregex_iterator f(rest.begin(), rest.end(), flag); f != end; ++f) {
          std::string name = (*f)[1];
          ++checked;
          if (name == "--help" || std::regex_search(help, std::regex(name + "(?![a-z0-9-])"))) continue;
          problems.push_back(where + ": `kwb " + path + " " + name + "`: " + name + " is not in `kwb " + path + " --help`");
        }
      }
    }
  }
  std::string all;
  for (const auto& p : problems) all += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << problems.size() << " mention(s) disagree with the binaries:" << all;
  EXPECT_GT(checked, 50) << "the docs name few flags: is the pattern still right?";
}

// The settings section of each --help (issue 17, point 12): a subcommand lists only the settings
// it reads (app/setting_flags.cpp declares them, util::Settings refuses undeclared reads).
std::set<std::string> settings_in(const std::string& help) {
  std::set<std::string> out;
  auto at = help.find("\nSettings:");
  if (at == std::string::npos) return out;
  static const std::regex item(R"(^\s+(--[a-z][a-z0-9-]*))");
  std::istringstream lines(help.substr(help.find('\n', at + 1) + 1));
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0]))) break;
    if (std::regex_search(line, m, item)) out.insert(m[1]);
  }
  return out;
}

TEST(DocsAgreeWithBinaries, EachSubcommandShowsOnlyTheSettingsItReads) {
  using Set = std::set<std::string>;
  const Set workspace_only = {"--workspace"};
  for (const char* path : {"token list", "token create", "token revoke", "tuning list", "tuning export", "tuning import",
                           "restore", "mcp"})
    EXPECT_EQ(settings_in(help_of(path)), workspace_only) << "kwb " << path << " --help:\n" << help_of(path);
  for (const char* path : {"submit", "status", "list", "cancel", "promote", "reject", "diff", "leaderboard", "review",
                           "library", "spec new"})
    EXPECT_EQ(settings_in(help_of(path)), Set{}) << "kwb " << path << " --help:\n" << help_of(path);
  EXPECT_EQ(settings_in(help_of("specs")), (Set{"--specs-dir", "--specs", "--workspace", "--library"}));
  // Timing settings only where something is timed or built.
  const Set timing = {"eval", "serve", "ci promote", "retime", "calibrate", "spec check", "spec add", "worker",
                      "library report"};
  for (const auto& top : subcommands_in(help_of(""))) {
    auto nested = subcommands_in(help_of(top));
    std::vector<std::string> paths;
    if (nested.empty()) paths.push_back(top);
    for (const auto& n : nested) paths.push_back(top + " " + n);
    for (const auto& path : paths) {
      const Set listed = settings_in(help_of(path));
      EXPECT_EQ(listed.count("--gpu-clock") + listed.count("--time-budget-ms"), timing.count(path) ? 2u : 0u)
          << "kwb " << path << " --help:\n" << help_of(path);
      EXPECT_EQ(listed.count("--decide-budget-ms"),
                path == "eval" || path == "serve" || path == "ci promote" || path == "worker" ? 1u : 0u)
          << "kwb " << path;
      EXPECT_EQ(listed.count("--auto-promote"), path == "serve" ? 1u : 0u) << "kwb " << path;
    }
  }
  // A setting a subcommand does not read is not accepted there either.
  auto r = run_command((bin_dir() / "kwb").string() + " token list --gpu-clock events 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--gpu-clock"), std::string::npos) << r.out;
}

}  // namespace
