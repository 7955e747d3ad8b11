// Every template a spec folder ships (specs/<op>/template.<variant>.cpp, docs/specs.md "The
// contract") is a correct candidate: `kwb eval` accepts it on every test and bench workload
// (validated, not timed: --no-bench keeps the 4096^3 gemm out of a unit of test time). The CUDA
// templates (template.<variant>.cu, template.<variant>.launcher.cu) pass analysis and compile
// here: their verdict is no_device without a GPU (gpu_tests' ShippedCudaTemplate requires
// accepted on the H200).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "support.hpp"

namespace {

using namespace kwb::test;

struct Template {
  std::string source, op, variant;
};

// The templates of one backend: "cpu" (.cpp), "cuda" (.cu), "cuda-launcher" (.launcher.cu).
std::vector<Template> shipped_templates(const std::string& backend = "cpu") {
  const std::string ext = backend == "cpu" ? ".cpp" : backend == "cuda" ? ".cu" : ".launcher.cu";
  std::vector<Template> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(source_dir() / "specs")) {
    std::string name = f.path().filename().string();
    if (!name.starts_with("template.") || !name.ends_with(ext)) continue;
    if (backend == "cuda" && name.ends_with(".launcher.cu")) continue;
    std::string variant = name.substr(9, name.size() - 9 - ext.size());  // template.<variant><ext>
    out.push_back({f.path().string(), f.path().parent_path().filename().string(), variant});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.source < b.source; });
  return out;
}

void PrintTo(const Template& t, std::ostream* os) { *os << t.source; }

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

// Analysis and compile (NVRTC for cuda, nvcc for launchers) pass; the device stages need a GPU.
void expect_compiles(const Template& t, const std::string& backend) {
  auto r = kwb_eval_json(t.source, "--op " + t.op + " --variant " + t.variant + " --backend " + backend);
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_TRUE(r.verdict["status"] == "no_device" || r.verdict["status"] == "accepted")
      << r.verdict["status"] << ": " << r.verdict["reason"];
  EXPECT_EQ(r.verdict["variant"], t.variant);
  for (const auto& d : r.verdict["diagnostics"]) EXPECT_NE(d["severity"], "error") << d.dump();
  for (const char* stage : {"analyze", "compile"})
    EXPECT_TRUE(r.verdict["summary"]["stage_ms"].contains(stage)) << stage << " did not run: " << r.verdict.dump(2);
}

class SpecCudaTemplate : public ::testing::TestWithParam<Template> {};
TEST_P(SpecCudaTemplate, AnalysesAndCompiles) { expect_compiles(GetParam(), "cuda"); }
INSTANTIATE_TEST_SUITE_P(Specs, SpecCudaTemplate, ::testing::ValuesIn(shipped_templates("cuda")), name_of);

class SpecLauncherTemplate : public ::testing::TestWithParam<Template> {};
TEST_P(SpecLauncherTemplate, AnalysesAndCompiles) { expect_compiles(GetParam(), "cuda-launcher"); }
INSTANTIATE_TEST_SUITE_P(Specs, SpecLauncherTemplate, ::testing::ValuesIn(shipped_templates("cuda-launcher")), name_of);

// Every variant of every shipped spec ships a template per backend (the nine starter specs' ten
// variants at least; the ops added since, docs/specs.md "Shipped model ops", too).
TEST(SpecTemplates, EveryShippedVariantShipsATemplatePerBackend) {
  size_t variants = 0;
  for (const auto& d : std::filesystem::directory_iterator(source_dir() / "specs")) {
    if (!std::filesystem::exists(d.path() / "spec.json")) continue;
    auto spec = nlohmann::json::parse(read_text(d.path() / "spec.json"), nullptr, false, /*ignore_comments=*/true);
    ASSERT_TRUE(spec.is_object()) << d.path();
    for (const auto& v : spec["variants"]) {
      ++variants;
      const std::string name = v["name"];
      for (const char* ext : {".cpp", ".cu", ".launcher.cu"})
        EXPECT_TRUE(std::filesystem::exists(d.path() / ("template." + name + ext))) << d.path() << ": " << name << ext;
    }
  }
  EXPECT_GE(variants, 10u);
  EXPECT_EQ(shipped_templates().size(), variants);
  EXPECT_EQ(shipped_templates("cuda").size(), variants);
  EXPECT_EQ(shipped_templates("cuda-launcher").size(), variants);
}

}  // namespace
