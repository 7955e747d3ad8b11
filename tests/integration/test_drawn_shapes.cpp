// Fresh test shapes per evaluation (docs/specs.md "Shapes") through `kwb eval`: a kernel correct
// on exactly the published test shapes is incorrect because of the drawn ones, whatever the
// (secret) seed; honest shipped kernels are still accepted; drawn workloads are named, marked
// and test-only.
#include <gtest/gtest.h>

#include <regex>

#include "support.hpp"

namespace {

using namespace kwb::test;

// A copy of specs/<op> without its "shapes" section (what the op looked like before them).
std::filesystem::path specs_without_shapes(const std::string& op) {
  auto dir = workspace() / "specs-without-shapes";
  std::filesystem::create_directories(dir / op);
  std::string text = read_text(source_dir() / "specs" / op / "spec.json");
  size_t at = text.find("\"shapes\":");
  EXPECT_NE(at, std::string::npos) << op << " has shapes";
  size_t end = text.find('\n', at);
  size_t comma = text.rfind(',', at);  // the comma that separated it from the field before
  text = text.substr(0, comma) + text.substr(end);
  std::ofstream(dir / op / "spec.json") << text;
  std::filesystem::copy_file(source_dir() / "specs" / op / "reference.cpp", dir / op / "reference.cpp");
  return dir;
}

// The drawn workloads of a verdict, each checked for its name, kind and params.
std::vector<nlohmann::json> drawn_workloads(const nlohmann::json& verdict) {
  std::vector<nlohmann::json> out;
  for (const auto& w : verdict["workloads"]) {
    if (!w["drawn"].get<bool>()) continue;
    EXPECT_EQ(w["kind"], "test") << w.dump();
    std::string name = "drawn:";
    for (const auto& p : {"rows", "cols"}) {  // softmax's params, in spec order
      if (!w["params"].contains(p)) continue;
      name += std::string(name.size() > 6 ? "," : "") + p + "=" + std::to_string(w["params"][p].get<int64_t>());
    }
    EXPECT_EQ(w["name"], name);
    out.push_back(w);
  }
  return out;
}

const std::string k_cheat = "tests/integration/cpu_cases/published_shapes_only.cpp";

TEST(DrawnShapes, KernelTunedToThePublishedShapesIsIncorrect) {
  auto r = kwb_eval_json((source_dir() / k_cheat).string(), "--op softmax --no-bench");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
  const std::string reason = r.verdict["reason"];
  EXPECT_TRUE(std::regex_search(reason, std::regex(R"(^wrong on 3 of 10 test workloads; workload drawn:rows=\d+,cols=\d+ )")))
      << reason;
  for (const auto& w : r.verdict["workloads"]) {
    if (!w["drawn"].get<bool>()) {
      EXPECT_TRUE(w["correct"].get<bool>()) << "published " << w["name"] << " is right";
    }
  }
  auto drawn = drawn_workloads(r.verdict);
  ASSERT_EQ(drawn.size(), 3u) << r.verdict["workloads"].dump();
  for (const auto& w : drawn) EXPECT_FALSE(w["correct"].get<bool>()) << w["name"];
  // The reason names a workload of this verdict.
  bool named = false;
  for (const auto& w : drawn) named = named || reason.find("workload " + w["name"].get<std::string>() + " ") != std::string::npos;
  EXPECT_TRUE(named) << reason;
}

TEST(DrawnShapes, WithoutDrawnShapesTheSameKernelWouldPass) {
  // The control: the kernel really is correct on every published test shape.
  auto r = kwb_eval_json((source_dir() / k_cheat).string(),
                         "--op softmax --no-bench --specs-dir " + shell_quote(specs_without_shapes("softmax").string()));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_TRUE(drawn_workloads(r.verdict).empty());
}

TEST(DrawnShapes, HonestShippedKernelIsAccepted) {
  auto r = kwb_eval_json((source_dir() / "kernels/softmax/cpu/three_pass.cpp").string(), "--op softmax --time-budget-ms 50");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_NE(r.verdict["reason"].get<std::string>().find("correct on 7 test, 3 drawn and 2 bench workloads"),
            std::string::npos)
      << r.verdict["reason"];
  auto drawn = drawn_workloads(r.verdict);
  ASSERT_EQ(drawn.size(), 3u);
  for (const auto& w : drawn) {
    EXPECT_TRUE(w["correct"].get<bool>()) << w["name"];
    EXPECT_GE(w["checks"].get<int>(), 8) << "every distribution, twice: " << w["name"];
    EXPECT_TRUE(w["time"].is_null()) << "drawn workloads are test-only: " << w["name"];
  }
  // Test workloads first (published, then drawn), bench workloads last.
  const auto& ws = r.verdict["workloads"];
  ASSERT_EQ(ws.size(), 12u);
  for (size_t i = 0; i < ws.size(); ++i) {
    EXPECT_EQ(ws[i]["kind"], i < 10 ? "test" : "bench") << i;
    EXPECT_EQ(ws[i]["drawn"].get<bool>(), i >= 7 && i < 10) << i;
  }
}

TEST(DrawnShapes, HonestGemmIsAcceptedOnItsCheapDrawnShapes) {
  // gemm's CPU reference is O(m*n*k): its drawn shapes are capped by a constraint.
  auto r = kwb_eval_json((source_dir() / "kernels/gemm/cpu/blocked_f32.cpp").string(), "--op gemm --variant f32 --no-bench");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  int drawn = 0;
  for (const auto& w : r.verdict["workloads"]) {
    if (!w["drawn"].get<bool>()) continue;
    ++drawn;
    const auto& p = w["params"];
    EXPECT_LE(p["m"].get<int64_t>() * p["n"].get<int64_t>() * p["k"].get<int64_t>(), 4000000) << w["name"];
  }
  EXPECT_EQ(drawn, 3);
}

TEST(DrawnShapes, FixedSeedDrawsTheSameShapesAndAnotherSeedOthers) {
  auto src = (source_dir() / "kernels/row_sum/cpu/blocked.cpp").string();
  auto names = [&](int seed) {
    auto r = kwb_eval_json(src, "--op row_sum --no-bench --seed " + std::to_string(seed));
    EXPECT_EQ(r.verdict["status"], "accepted") << r.raw;
    std::vector<std::string> out;
    for (const auto& w : r.verdict["workloads"])
      if (w["drawn"].get<bool>()) out.push_back(w["name"]);
    return out;
  };
  auto a = names(7), b = names(7), c = names(8);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

}  // namespace
