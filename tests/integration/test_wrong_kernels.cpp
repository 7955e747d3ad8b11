// Wrong and hostile CPU kernels (tests/integration/cpu_cases/*.cpp) get the verdict and the
// reason their first line declares:
//   // kwb-expect: op=OP status=STATUS reason="substring" [diagnostic="substring"] [args="..."]
#include <gtest/gtest.h>

#include <regex>
#include <vector>

#include "support.hpp"

namespace {

using namespace kwb::test;

struct Case {
  std::string file, op, status, reason, diagnostic, args, env;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  static const std::regex field(R"((\w+)=(?:\"([^\"]*)\"|(\S+)))");
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "tests/integration/cpu_cases")) {
    if (e.path().extension() != ".cpp") continue;
    std::string first = read_text(e.path()).substr(0, 400);
    first = first.substr(0, first.find('\n'));
    Case c;
    c.file = e.path().string();
    for (std::sregex_iterator it(first.begin(), first.end(), field), end; it != end; ++it) {
      std::string k = (*it)[1], v = (*it)[2].matched ? (*it)[2].str() : (*it)[3].str();
      if (k == "op") c.op = v;
      else if (k == "status") c.status = v;
      else if (k == "reason") c.reason = v;
      else if (k == "diagnostic") c.diagnostic = v;
      else if (k == "args") c.args = v;
      else if (k == "env") c.env = v;
    }
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
  return out;
}

class WrongKernel : public ::testing::TestWithParam<Case> {};

TEST_P(WrongKernel, GetsTheRightVerdict) {
  const auto& c = GetParam();
  ASSERT_FALSE(c.op.empty()) << c.file << ": no kwb-expect line";
  auto r = kwb_eval_json(c.file, "--op " + c.op + " --time-budget-ms 50 " + c.args, c.env);
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], c.status) << r.verdict["reason"];
  EXPECT_EQ(r.exit_code, 1);
  std::string reason = r.verdict["reason"];
  EXPECT_NE(reason.find(c.reason), std::string::npos) << "reason: " << reason;
  if (!c.diagnostic.empty()) {
    bool found = false;
    for (const auto& d : r.verdict["diagnostics"]) {
      std::string loc = d["file"].get<std::string>() + ":" + std::to_string(d["line"].get<int>()) + ":";
      if (loc.find(c.diagnostic) != std::string::npos && d["col"].get<int>() > 0) found = true;
    }
    EXPECT_TRUE(found) << r.verdict["diagnostics"].dump();
  }
}

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  return std::filesystem::path(info.param.file).stem().string();
}

INSTANTIATE_TEST_SUITE_P(Corpus, WrongKernel, ::testing::ValuesIn(cases()), name_of);

TEST(EvalCli, UsageErrorsExitTwo) {
  auto missing = run_command(kwb_command("eval /nonexistent.cpp --op softmax"));
  EXPECT_EQ(missing.exit_code, 2);
  auto unknown_op = run_command(kwb_command("eval " + (source_dir() / "kernels/softmax/cpu/three_pass.cpp").string() +
                                            " --op no_such_op"));
  EXPECT_EQ(unknown_op.exit_code, 2);
  auto no_args = run_command(kwb_command("eval"));
  EXPECT_EQ(no_args.exit_code, 2);
}

TEST(EvalCli, IdenticalResubmissionHitsTheCompileCache) {
  // A source no other test uses, so the first evaluation is a miss in this workspace.
  auto dir = workspace() / "cache-test";
  std::filesystem::create_directories(dir);
  auto src = dir / "unique_add.cpp";
  std::ofstream(src) << "#include <cstdint>\n// " << ::getpid() << "\nextern \"C\" void kwb_vector_add_f32("
                        "const float* a, const float* b, float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) "
                        "c[i] = a[i] + b[i]; }\n";
  auto first = kwb_eval_json(src.string(), "--op vector_add --no-bench");
  auto second = kwb_eval_json(src.string(), "--op vector_add --no-bench");
  auto off = kwb_eval_json(src.string(), "--op vector_add --no-bench --no-cache");
  ASSERT_EQ(first.verdict["status"], "accepted") << first.raw;
  EXPECT_EQ(first.verdict["summary"]["compile_cache"], "miss");
  EXPECT_EQ(second.verdict["status"], "accepted") << second.raw;
  EXPECT_EQ(second.verdict["summary"]["compile_cache"], "hit");
  EXPECT_LT(second.verdict["summary"]["stage_ms"]["compile"].get<double>(),
            first.verdict["summary"]["stage_ms"]["compile"].get<double>());
  EXPECT_EQ(off.verdict["summary"]["compile_cache"], "off");
}

TEST(EvalCli, FixedSeedIsReproducible) {
  auto src = (source_dir() / "kernels/row_sum/cpu/blocked.cpp").string();
  auto a = kwb_eval_json(src, "--op row_sum --seed 42 --no-bench");
  auto b = kwb_eval_json(src, "--op row_sum --seed 42 --no-bench");
  ASSERT_EQ(a.verdict["status"], "accepted") << a.raw;
  ASSERT_EQ(a.verdict["workloads"].size(), b.verdict["workloads"].size());
  for (size_t i = 0; i < a.verdict["workloads"].size(); ++i) {
    EXPECT_EQ(a.verdict["workloads"][i]["name"], b.verdict["workloads"][i]["name"]);  // drawn shapes too
    EXPECT_EQ(a.verdict["workloads"][i]["max_abs_err"], b.verdict["workloads"][i]["max_abs_err"]);
  }
}

}  // namespace
