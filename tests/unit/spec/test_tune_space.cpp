// The tunables' space: ranges, powers of two, constraints, and the errors of broken syntax
// (spec/tune_space.hpp, docs/tuning.md).
#include <gtest/gtest.h>

#include "spec/launch_plan.hpp"
#include "spec/tune_space.hpp"

namespace kwb::spec {
namespace {

constexpr const char* k_launch = "// kwb:launch k grid=(rows) block=(32) args=(y)\n";

util::Result<core::LaunchPlan> parse(const std::string& tune_lines) {
  return parse_launch_plan(std::string(k_launch) + tune_lines, "candidate.cu");
}

void expect_error(const std::string& tune_lines, const std::string& want) {
  auto p = parse(tune_lines);
  ASSERT_FALSE(p) << "accepted: " << tune_lines;
  EXPECT_NE(p.error().what().find(want), std::string::npos) << p.error().what();
}

TEST(TuneSpace, ValueForms) {
  EXPECT_EQ(*parse_tune_values("range(32,256,32)"), (std::vector<int64_t>{32, 64, 96, 128, 160, 192, 224, 256}));
  EXPECT_EQ(*parse_tune_values("range(1, 10, 4)"), (std::vector<int64_t>{1, 5, 9}));
  EXPECT_EQ(*parse_tune_values("pow2(16,256)"), (std::vector<int64_t>{16, 32, 64, 128, 256}));
  EXPECT_EQ(*parse_tune_values("2..5"), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(*parse_tune_values("1,4..6,pow2(32,64)"), (std::vector<int64_t>{1, 4, 5, 6, 32, 64}));
  EXPECT_EQ(*parse_tune_values("-2..0"), (std::vector<int64_t>{-2, -1, 0}));
}

TEST(TuneSpace, RangesAndConstraintsMakeTheSpace) {
  auto p = parse("// kwb:tune BM=range(32,256,32) BN=pow2(16,256) STAGES=2..5\n"
                 "// kwb:constraint BM*BN <= 16384\n"
                 "// kwb:constraint STAGES * BM <= 768\n");
  ASSERT_TRUE(p) << p.error().what();
  ASSERT_EQ(p->constraints.size(), 2u);
  EXPECT_EQ(p->constraints[1].line, 4);
  auto configs = tune_configs(*p);
  size_t expected = 0;
  for (int64_t bm = 32; bm <= 256; bm += 32)
    for (int64_t bn = 16; bn <= 256; bn *= 2)
      for (int64_t st = 2; st <= 5; ++st) expected += bm * bn <= 16384 && st * bm <= 768;
  EXPECT_EQ(configs.size(), expected);
  EXPECT_GT(configs.size(), k_max_tune_configs);  // searched, not a grid
  for (const auto& c : configs) {
    EXPECT_LE(c.values.at("BM") * c.values.at("BN"), 16384) << c.label();
    EXPECT_LE(c.values.at("STAGES") * c.values.at("BM"), 768) << c.label();
  }
  EXPECT_EQ(configs.front().label(), "BM=32,BN=16,STAGES=2");  // the order written, the last fastest
  EXPECT_EQ(configs[1].label(), "BM=32,BN=16,STAGES=3");
}

TEST(TuneSpace, SizesUpToAFewThousand) {
  auto p = parse("// kwb:tune A=1..64 B=1..64\n// kwb:constraint A + B <= 90\n");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_GT(tune_configs(*p).size(), 2000u);
  EXPECT_LE(tune_configs(*p).size(), k_max_tune_space);
}

TEST(TuneSpace, BrokenSyntaxNamesFileLineAndWhat) {
  expect_error("// kwb:tune BM=range(32,256)\n", "candidate.cu:2: kwb:tune: BM: 'range(32,256)': range takes (LO, HI, STEP)");
  expect_error("// kwb:tune BM=range(32,256,0)\n", "candidate.cu:2: kwb:tune: BM: 'range(32,256,0)': the step must be positive");
  expect_error("// kwb:tune BM=range(256,32,32)\n", "HI 32 is below LO 256");
  expect_error("// kwb:tune BN=pow2(16,100)\n", "candidate.cu:2: kwb:tune: BN: 'pow2(16,100)': LO and HI must be powers of two");
  expect_error("// kwb:tune S=5..2\n", "candidate.cu:2: kwb:tune: S: '5..2': HI 2 is below LO 5");
  expect_error("// kwb:tune S=2..x\n", "candidate.cu:2: kwb:tune: S: 'x' in '2..x' is not an integer");
  expect_error("// kwb:tune S=1,,2\n", "candidate.cu:2: kwb:tune: S: an empty value");
  expect_error("// kwb:tune S=1..4,3\n", "candidate.cu:2: kwb:tune: S: value 3 is listed twice");
  expect_error("// kwb:tune S=0..5000\n", "gives more than 1024 values");
  expect_error("// kwb:tune A=1..100 B=1..100\n", "candidate.cu:2: kwb:tune: the space holds more than 4096 configs");
  expect_error("// kwb:tune A=1..1000 B=1..1000\n", "candidate.cu:2: kwb:tune: the tunables give more than 65536");
  expect_error("// kwb:tune A=1..4\n\n// kwb:constraint A <= \n", "candidate.cu:4: kwb:constraint: 'A <=':");
  expect_error("// kwb:tune A=1..4\n// kwb:constraint\n", "candidate.cu:3: kwb:constraint: expected a condition");
  expect_error("// kwb:tune A=1..4\n// kwb:constraint A + 1\n", "candidate.cu:3: kwb:constraint: 'A + 1':");
  expect_error("// kwb:tune A=1..4\n// kwb:constraint A * rows <= 8\n",
               "candidate.cu:3: kwb:constraint: 'A * rows <= 8' uses 'rows', which is not a tunable (tunables: A)");
  expect_error("// kwb:tune A=0..4\n// kwb:constraint 8 / A >= 2\n",
               "candidate.cu:3: kwb:constraint: '8 / A >= 2' cannot be evaluated for A=0");
  expect_error("// kwb:tune A=1..4\n// kwb:constraint A > 4\n",
               "candidate.cu:3: kwb:constraint: no combination of the tunables satisfies every constraint");
}

TEST(TuneSpace, ConstraintBeforeItsTunablesIsFine) {
  auto p = parse("// kwb:constraint A < B\n// kwb:tune A=1..3 B=1..3\n");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(tune_configs(*p).size(), 3u);  // (1,2) (1,3) (2,3)
}

}  // namespace
}  // namespace kwb::spec
