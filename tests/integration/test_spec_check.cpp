// `kwb spec new` and `kwb spec check` as users run them: the broken specs of tests/specs_broken
// (each folder's expect.json says what must be reported), the shipped specs, and a new skeleton.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "support.hpp"

namespace kwb::test {
namespace {

namespace fs = std::filesystem;

fs::path broken_dir() { return source_dir() / "tests" / "specs_broken"; }

std::vector<std::string> broken_cases() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(broken_dir()))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string spec_check(const fs::path& dir, const std::string& args) {
  return kwb_command("spec check " + shell_quote(dir.string()) + " " + args);
}

std::string args_of(const nlohmann::json& expect) {
  std::string out;
  for (const auto& a : expect.value("args", nlohmann::json::array())) out += " " + shell_quote(a.get<std::string>());
  return out;
}

bool matches(const nlohmann::json& got, const nlohmann::json& want, const fs::path& folder) {
  if (got["file"] != (folder / want["file"].get<std::string>()).string()) return false;
  if (want.contains("field") && got["field"] != want["field"]) return false;
  if (want.contains("field_prefix") && !got["field"].get<std::string>().starts_with(want["field_prefix"].get<std::string>()))
    return false;
  return got["severity"] == want["severity"] &&
         got["message"].get<std::string>().find(want["message"].get<std::string>()) != std::string::npos;
}

class BrokenSpec : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenSpec, IsCaughtWithFileFieldAndReason) {
  const fs::path folder = broken_dir() / GetParam();
  const auto expect = nlohmann::json::parse(read_text(folder / "expect.json"));
  auto r = run_command(spec_check(folder, "--json" + args_of(expect)));
  EXPECT_EQ(r.exit_code, expect["exit"].get<int>()) << r.out;
  auto problems = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << r.out;
  for (const auto& want : expect["problems"]) {
    bool found = false;
    for (const auto& got : problems) found = found || matches(got, want, folder);
    EXPECT_TRUE(found) << "expected " << want.dump() << "\namong " << problems.dump(2);
  }
  if (expect.contains("strict_exit")) {
    auto strict = run_command(spec_check(folder, "--strict" + args_of(expect)));
    EXPECT_EQ(strict.exit_code, expect["strict_exit"].get<int>()) << strict.out;
  }
}

INSTANTIATE_TEST_SUITE_P(SpecCheck, BrokenSpec, ::testing::ValuesIn(broken_cases()),
                         [](const auto& info) { return info.param; });

TEST(SpecCheck, TheCorpusHasAtLeastTenBrokenSpecs) { EXPECT_GE(broken_cases().size(), 10u); }

TEST(SpecCheck, TextOutputNamesFileFieldSeverityAndEndsWithASummary) {
  const fs::path folder = broken_dir() / "unknown_dtype";
  auto r = run_command(spec_check(folder, "--no-reference"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find((folder / "spec.json").string() + ": variants[0].dtypes.x: error: unknown dtype 'f8'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("checked 1 spec (without the reference checks): 1 error, 0 warnings"), std::string::npos) << r.out;
}

TEST(SpecCheck, ACatalogFolderChecksEveryOpFolder) {
  auto r = run_command(spec_check(broken_dir(), "--json --no-reference"));
  EXPECT_EQ(r.exit_code, 1);
  auto problems = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << r.out;
  std::set<std::string> folders;
  for (const auto& p : problems) folders.insert(fs::path(p["file"].get<std::string>()).parent_path().filename().string());
  for (const char* name : {"bad_expression", "unknown_dtype", "bench_too_large", "zero_roofline", "missing_edge_workloads"})
    EXPECT_TRUE(folders.contains(name)) << name << " in " << r.out;
}

// The CI check of the shipped specs: every check, the references as evaluations open them.
TEST(SpecCheck, TheShippedSpecsPass) {
  auto r = run_command(spec_check(source_dir() / "specs", "--json"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto problems = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << r.out;
  for (const auto& p : problems) EXPECT_NE(p["severity"], "error") << p.dump();
}

TEST(SpecCheck, BadUsageExitsWithTwo) {
  EXPECT_EQ(run_command(spec_check(broken_dir() / "no_such_case", "")).exit_code, 2);
  EXPECT_EQ(run_command(spec_check(broken_dir() / "unknown_dtype", "--cuda-memory 12parsecs")).exit_code, 2);
}

TEST(SpecCheck, ANewSkeletonPassesTheCheck) {
  char tmpl[] = "/tmp/kwb-spec-new-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const fs::path parent = tmpl;
  const std::string kwb_new = (bin_dir() / "kwb").string() + " spec new my_op --dir " + shell_quote(parent.string());
  auto made = run_command(kwb_new);
  EXPECT_EQ(made.exit_code, 0) << made.out;
  EXPECT_TRUE(fs::exists(parent / "my_op" / "spec.json"));
  EXPECT_TRUE(fs::exists(parent / "my_op" / "reference.cpp"));
  EXPECT_EQ(run_command(kwb_new).exit_code, 2);  // it exists now
  auto structural = run_command(spec_check(parent / "my_op", "--no-reference --strict"));
  EXPECT_EQ(structural.exit_code, 0) << structural.out;
  EXPECT_NE(structural.out.find("0 errors, 0 warnings"), std::string::npos) << structural.out;
  auto full = run_command(spec_check(parent / "my_op", "--strict"));  // the reference checks too
  EXPECT_EQ(full.exit_code, 0) << full.out;
  fs::remove_all(parent);
}

}  // namespace
}  // namespace kwb::test
