// specs/layernorm's tolerance admits the methods same-precision kernels use (issue 37): an honest
// f32 Welford kernel (PyTorch's method, layernorm_cases/welford_f32.cpp) is accepted under every
// distribution and on any drawn shape, including rows=2333, cols=2 under large_offset, which
// version 1 rejected it on; a one-pass E[x^2] - E[x]^2 kernel is still caught
// (cpu_cases/layernorm_one_pass.cpp, run by WrongKernel).
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

using namespace kwb::test;

const std::string k_welford = "tests/integration/layernorm_cases/welford_f32.cpp";

// A copy of specs/layernorm whose drawn shapes are the one rows x cols.
std::filesystem::path layernorm_drawing(int64_t rows, int64_t cols) {
  auto dir = workspace() / ("layernorm-" + std::to_string(rows) + "x" + std::to_string(cols));
  std::filesystem::create_directories(dir / "layernorm");
  std::string text = read_text(source_dir() / "specs/layernorm/spec.json");
  const std::string ranges = R"("ranges": {"rows": "1..4096", "cols": "1..70000"})";
  const size_t at = text.find(ranges);
  EXPECT_NE(at, std::string::npos) << "specs/layernorm/spec.json's shapes changed: update this test";
  if (at != std::string::npos)
    text.replace(at, ranges.size(), "\"ranges\": {\"rows\": " + std::to_string(rows) + ", \"cols\": " + std::to_string(cols) + "}");
  std::ofstream(dir / "layernorm" / "spec.json") << text;
  std::filesystem::copy_file(source_dir() / "specs/layernorm/reference.cpp", dir / "layernorm" / "reference.cpp",
                             std::filesystem::copy_options::overwrite_existing);
  return dir;
}

TEST(LayernormTolerance, WelfordIsAcceptedUnderEveryDistributionAndDrawnShape) {
  for (int seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    auto r = kwb_eval_json((source_dir() / k_welford).string(), "--op layernorm --no-bench --seed " + std::to_string(seed));
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
    int drawn = 0;
    for (const auto& w : r.verdict["workloads"]) {
      EXPECT_TRUE(w["correct"].get<bool>()) << w["name"];
      if (w["kind"] == "test") EXPECT_GE(w["checks"].get<int>(), 10) << "5 distributions, twice: " << w["name"];
      drawn += w["drawn"].get<bool>();
    }
    EXPECT_EQ(drawn, 3);
  }
}

TEST(LayernormTolerance, WelfordIsAcceptedOnTheShapeVersion1RejectedItOn) {
  const auto specs = layernorm_drawing(2333, 2);
  for (int seed : {1, 2}) {
    SCOPED_TRACE(seed);
    auto r = kwb_eval_json((source_dir() / k_welford).string(), "--op layernorm --no-bench --seed " + std::to_string(seed) +
                                                                    " --specs-dir " + shell_quote(specs.string()));
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
    bool seen = false;
    for (const auto& w : r.verdict["workloads"]) seen = seen || w["name"] == "drawn:rows=2333,cols=2";
    EXPECT_TRUE(seen) << r.verdict["workloads"].dump();
  }
}

TEST(LayernormTolerance, OnePassIsCaughtOnTheSameShape) {
  const auto specs = layernorm_drawing(2333, 2);
  auto r = kwb_eval_json((source_dir() / "tests/integration/cpu_cases/layernorm_one_pass.cpp").string(),
                         "--op layernorm --no-bench --specs-dir " + shell_quote(specs.string()));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
  bool drawn_wrong = false;
  for (const auto& w : r.verdict["workloads"])
    drawn_wrong = drawn_wrong || (w["name"] == "drawn:rows=2333,cols=2" && !w["correct"].get<bool>());
  EXPECT_TRUE(drawn_wrong) << r.verdict["workloads"].dump();
}

}  // namespace
