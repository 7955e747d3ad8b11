// Every template a spec folder ships (specs/<op>/template.<variant>.cpp, docs/specs.md "The
// contract") is a correct candidate: `kwb eval` accepts it on every test and bench workload
// (validated, not timed: --no-bench keeps the 4096^3 gemm out of a unit of test time).
#include <gtest/gtest.h>

#include <vector>

#include "support.hpp"

namespace {

using namespace kwb::test;

struct Template {
  std::string source, op, variant;
};

std::vector<Template> shipped_templates() {
  std::vector<Template> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(source_dir() / "specs")) {
    std::string name = f.path().filename().string();
    if (!name.starts_with("template.") || f.path().extension() != ".cpp") continue;
    std::string variant = name.substr(9, name.size() - 9 - 4);  // template.<variant>.cpp
    out.push_back({f.path().string(), f.path().parent_path().filename().string(), variant});
  }
  return out;
}

class SpecTemplate : public ::testing::TestWithParam<Template> {};

TEST_P(SpecTemplate, IsAcceptedOnEveryWorkload) {
  const auto& t = GetParam();
  auto r = kwb_eval_json(t.source, "--op " + t.op + " --variant " + t.variant + " --no-bench");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_EQ(r.exit_code, 0);
  for (const auto& d : r.verdict["diagnostics"]) EXPECT_NE(d["severity"], "error") << d.dump();
}

std::string name_of(const ::testing::TestParamInfo<Template>& info) {
  std::string n = info.param.op + "_" + info.param.variant;
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Specs, SpecTemplate, ::testing::ValuesIn(shipped_templates()), name_of);

TEST(SpecTemplates, EveryStarterVariantShipsACpuTemplate) { EXPECT_EQ(shipped_templates().size(), 10u); }

}  // namespace
