// GPU tests (ctest label `gpu`): every CUDA template a spec folder ships
// (specs/<op>/template.<variant>.cu and template.<variant>.launcher.cu, docs/specs.md "The
// contract") is a correct candidate: `kwb eval` accepts it on every test and bench workload of
// the H200. Each test skips itself when no CUDA device is present (tests/integration's
// SpecTemplate checks on any machine that they analyse and compile).
#include <gtest/gtest.h>

#include "cuda_test_support.hpp"

namespace {

using namespace kwb::cudatest;

struct CudaTemplate {
  std::string source, op, variant, backend;
};

std::vector<CudaTemplate> shipped_cuda_templates() {
  std::vector<CudaTemplate> out;
  for (const auto& f : std::filesystem::recursive_directory_iterator(source_dir() / "specs")) {
    const std::string name = f.path().filename().string();
    if (!name.starts_with("template.") || !name.ends_with(".cu")) continue;
    const bool launcher = name.ends_with(".launcher.cu");
    const size_t tail = launcher ? std::string(".launcher.cu").size() : 3;
    out.push_back({f.path().string(), f.path().parent_path().filename().string(),
                   name.substr(9, name.size() - 9 - tail), launcher ? "cuda-launcher" : "cuda"});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.source < b.source; });
  return out;
}

void PrintTo(const CudaTemplate& t, std::ostream* os) { *os << t.source << " (" << t.backend << ")"; }

class ShippedCudaTemplate : public ::testing::TestWithParam<CudaTemplate> {};

TEST_P(ShippedCudaTemplate, IsAccepted) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto& t = GetParam();
  auto r = kwb_eval(t.source, "--op " + t.op + " --variant " + t.variant + " --backend " + t.backend +
                                  " --time-budget-ms 200");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.verdict["backend"], t.backend);
  bool timed = false;
  for (const auto& w : r.verdict["workloads"]) {
    EXPECT_TRUE(w["correct"].get<bool>()) << w["name"];
    timed = timed || (w["kind"] == "bench" && w["time"].is_object());
  }
  EXPECT_TRUE(timed) << "no bench workload was timed";
}

std::string template_name(const ::testing::TestParamInfo<CudaTemplate>& info) {
  return test_name(info.param.op + "_" + info.param.variant + "_" + info.param.backend);
}

INSTANTIATE_TEST_SUITE_P(Specs, ShippedCudaTemplate, ::testing::ValuesIn(shipped_cuda_templates()), template_name);

}  // namespace
