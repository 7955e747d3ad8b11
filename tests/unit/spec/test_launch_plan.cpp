#include <gtest/gtest.h>

#include "spec/launch_plan.hpp"
#include "spec/loader.hpp"

namespace kwb::spec {
namespace {

const core::Spec& softmax() {
  static const core::Spec spec = [] {
    auto s = load_spec(KWB_TEST_SOURCE_DIR "/specs/softmax/spec.json");
    if (!s) throw std::runtime_error(s.error().what());
    return *s;
  }();
  return spec;
}

util::Result<core::LaunchPlan> parse_and_bind(const std::string& src) {
  auto p = parse_launch_plan(src, "candidate.cu");
  if (!p) return p;
  if (auto r = bind_launch_plan(*p, softmax(), "candidate.cu"); !r) return std::unexpected(r.error());
  return p;
}

TEST(LaunchPlan, ParsesTheDocumentedHeader) {
  auto p = parse_and_bind(
      "// kwb:launch softmax_rows grid=(rows) block=(BLOCK) smem=0 args=(x, y, rows, cols)\n"
      "// kwb:tune BLOCK=128,256,512\n"
      "// kwb:workspace bytes=4*rows\n"
      "extern \"C\" __global__ void softmax_rows(const float* x, float* y, long long rows, long long cols, "
      "float* ws) {}\n"
      "// kwb:launch second grid=(ceil_div(rows, 4), 2) block=(32, 4) smem=(4 * BLOCK) args=(y, workspace)\n");
  ASSERT_TRUE(p) << p.error().what();
  ASSERT_EQ(p->launches.size(), 2u);
  const auto& l = p->launches[0];
  EXPECT_EQ(l.kernel, "softmax_rows");
  EXPECT_EQ(l.line, 1);
  EXPECT_EQ(l.grid, std::vector<std::string>{"rows"});
  EXPECT_EQ(l.block, std::vector<std::string>{"BLOCK"});
  ASSERT_EQ(l.args.size(), 4u);
  EXPECT_EQ(l.args[1].kind, core::LaunchArg::Kind::tensor);
  EXPECT_EQ(l.args[1].index, 1);
  EXPECT_EQ(l.args[3].kind, core::LaunchArg::Kind::param);
  EXPECT_EQ(l.args[3].index, 1);
  const auto& m = p->launches[1];
  EXPECT_EQ(m.line, 5);
  EXPECT_EQ(m.grid, (std::vector<std::string>{"ceil_div(rows, 4)", "2"}));
  EXPECT_EQ(m.smem, "4 * BLOCK");
  EXPECT_EQ(m.args[1].kind, core::LaunchArg::Kind::workspace);
  ASSERT_EQ(p->tunables.size(), 1u);
  EXPECT_EQ(p->tunables[0].values, (std::vector<int64_t>{128, 256, 512}));
  EXPECT_EQ(p->workspace_bytes, "4*rows");

  auto configs = tune_configs(*p);
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(configs[1].label(), "BLOCK=256");
  EXPECT_EQ(config_defines(configs[2]), std::vector<std::string>{"-DBLOCK=512"});
  auto dims = resolve_launches(*p, configs[1], {{"rows", 10}, {"cols", 7}}, "candidate.cu", "10x7");
  ASSERT_TRUE(dims) << dims.error().what();
  EXPECT_EQ((*dims)[0].grid[0], 10);
  EXPECT_EQ((*dims)[0].block[0], 256);
  EXPECT_EQ((*dims)[1].grid[0], 3);
  EXPECT_EQ((*dims)[1].grid[1], 2);
  EXPECT_EQ((*dims)[1].block[1], 4);
  EXPECT_EQ((*dims)[1].smem, 1024);
  auto ws = resolve_workspace(*p, configs[0], {{"rows", 10}, {"cols", 7}}, "candidate.cu", "10x7");
  ASSERT_TRUE(ws);
  EXPECT_EQ(*ws, 40);
}

TEST(LaunchPlan, TunableGridIsTheProduct) {
  auto p = parse_launch_plan("// kwb:launch k grid=(rows) block=(A) args=(y)\n// kwb:tune A=1,2 B=3,4,5\n", "c.cu");
  ASSERT_TRUE(p) << p.error().what();
  auto configs = tune_configs(*p);
  EXPECT_EQ(configs.size(), 6u);
  EXPECT_EQ(configs[0].label(), "A=1,B=3");
  auto none = parse_launch_plan("// kwb:launch k grid=(rows) block=(32) args=(y)\n", "c.cu");
  ASSERT_TRUE(none);
  ASSERT_EQ(tune_configs(*none).size(), 1u);
  EXPECT_EQ(tune_configs(*none)[0].label(), "default");
}

void expect_error(const std::string& src, const std::string& want) {
  auto p = parse_and_bind(src);
  ASSERT_FALSE(p) << "accepted: " << src;
  EXPECT_NE(p.error().what().find(want), std::string::npos) << p.error().what();
}

TEST(LaunchPlan, ErrorsNameTheLine) {
  expect_error("\n\n// kwb:launch k grid=(rows) block=(32) args=(x, y, z)\n",
               "candidate.cu:3: kwb:launch: unknown argument 'z' (tensors: x, y; params: rows, cols)");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=(x)\n",
               "candidate.cu:1: kwb:launch: output tensor 'y' is not an argument of any kernel");
  expect_error("// kwb:launch k grid=(rowz) block=(32) args=(x, y)\n",
               "candidate.cu:1: kwb:launch: grid x uses unknown name 'rowz' (params: rows, cols; tunables: none)");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=(x, y, workspace)\n",
               "candidate.cu:1: kwb:launch: argument 'workspace' needs a `// kwb:workspace bytes=EXPR` line");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=(y)\n// kwb:tune rows=1,2\n",
               "candidate.cu:2: kwb:tune: tunable 'rows' has the name of a param");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=(y)\n// kwb:tune B=1,x\n",
               "candidate.cu:2: kwb:tune: B: value 'x' is not an integer");
  expect_error("// kwb:launch k grid=(rows +) block=(32) args=(y)\n", "candidate.cu:1: kwb:launch: grid: 'rows +'");
  expect_error("// kwb:launch k grid=(1,1,1,1) block=(32) args=(y)\n", "at most 3");
  expect_error("// kwb:launch k grid=(rows) args=(y)\n", "candidate.cu:1: kwb:launch: missing block=(...)");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=(y) colour=red\n", "unknown key 'colour'");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=y\n", "args= takes a list in parentheses");
  expect_error("// kwb:lunch k\n", "candidate.cu:1: unknown directive 'kwb:lunch'");
  expect_error("int main() {}\n", "no kwb:launch line");
  expect_error("// kwb:launch k grid=(rows) block=(32) args=(y)\n// kwb:workspace bytes=4\n",
               "candidate.cu:2: kwb:workspace: no kwb:launch line passes 'workspace'");
  // Beyond the exhaustive grid's 64 configs a space is searched (spec/tune_space.hpp); its own
  // limits are tested in test_tune_space.cpp.
  auto wide = parse_and_bind("// kwb:launch k grid=(rows) block=(32) args=(y)\n// kwb:tune A=1,2,3,4,5,6,7,8 B=1,2,3,4,5,6,7,8,9\n");
  ASSERT_TRUE(wide) << wide.error().what();
  EXPECT_EQ(tune_configs(*wide).size(), 72u);
}

TEST(LaunchPlan, LimitsAreCheckedPerWorkload) {
  auto p = parse_and_bind("// kwb:launch k grid=(rows / 4) block=(B) smem=(S) args=(x, y)\n"
                          "// kwb:tune B=256,2048 S=0,300000\n");
  ASSERT_TRUE(p) << p.error().what();
  auto configs = tune_configs(*p);  // B=256,S=0; B=256,S=300000; B=2048,S=0; B=2048,S=300000
  std::map<std::string, int64_t> big{{"rows", 64}, {"cols", 1}}, small{{"rows", 3}, {"cols", 1}};
  EXPECT_TRUE(resolve_launches(*p, configs[0], big, "candidate.cu", "64x1"));
  auto zero = resolve_launches(*p, configs[0], small, "candidate.cu", "3x1");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().what().find("grid x = rows / 4 is 0 for workload 3x1, B=256,S=0"), std::string::npos)
      << zero.error().what();
  auto smem = resolve_launches(*p, configs[1], big, "candidate.cu", "64x1");
  ASSERT_FALSE(smem);
  EXPECT_NE(smem.error().what().find("300000 bytes"), std::string::npos) << smem.error().what();
  auto threads = resolve_launches(*p, configs[2], big, "candidate.cu", "64x1");
  ASSERT_FALSE(threads);
  EXPECT_NE(threads.error().what().find("candidate.cu:1: kwb:launch: block x = B is 2048"), std::string::npos)
      << threads.error().what();
  auto p2 = parse_and_bind("// kwb:launch k grid=(rows) block=(32, 32, 2) args=(x, y)\n");
  ASSERT_TRUE(p2);
  auto t2 = resolve_launches(*p2, tune_configs(*p2)[0], big, "candidate.cu", "64x1");
  ASSERT_FALSE(t2);
  EXPECT_NE(t2.error().what().find("block has 2048 threads"), std::string::npos) << t2.error().what();
}

TEST(LaunchPlan, VariantLineAndNonPlanComments) {
  auto p = parse_launch_plan("// kwb-expect: op=softmax\n// kwb:variant f32\n// kwb:launch k grid=(1) block=(1) "
                             "args=(y)\n/* kwb:launch not-a-directive */\n",
                             "c.cu");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(p->variant, "f32");
  EXPECT_EQ(p->launches.size(), 1u);
}

}  // namespace
}  // namespace kwb::spec

namespace kwb::spec {
namespace {

TEST(LaunchPlan, BareValuesRunToTheNextKey) {
  auto p = parse_launch_plan("// kwb:launch k grid=ceil_div(rows, 4), 2 block=32 smem=4 * B args=(y)\n"
                             "// kwb:workspace bytes=4*rows*ceil_div(cols, B) + 4*rows\n// kwb:tune B=1,2\n",
                             "c.cu");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(p->launches[0].grid, (std::vector<std::string>{"ceil_div(rows, 4)", "2"}));
  EXPECT_EQ(p->launches[0].block, std::vector<std::string>{"32"});
  EXPECT_EQ(p->launches[0].smem, "4 * B");
  EXPECT_EQ(p->workspace_bytes, "4*rows*ceil_div(cols, B) + 4*rows");
}

}  // namespace
}  // namespace kwb::spec

namespace kwb::spec {
namespace {

TEST(LaunchPlan, JsonFormBecomesAppendedLines) {
  auto lines = plan_lines_from_json(
      nlohmann::json::array({"k grid=(rows) block=(B) args=(x, y, rows, cols, workspace)", "kwb:workspace bytes=4*rows"}),
      nlohmann::json{{"B", {128, 256}}});
  ASSERT_TRUE(lines) << lines.error().what();
  std::string src = "extern \"C\" __global__ void k() {}\n" + *lines;
  auto p = parse_launch_plan(src, "candidate.cu");
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(p->launches[0].line, 2);
  EXPECT_EQ(p->workspace_bytes, "4*rows");
  EXPECT_EQ(tune_configs(*p).size(), 2u);
  EXPECT_FALSE(plan_lines_from_json(nlohmann::json::array({1}), nullptr));
  auto bad = plan_lines_from_json("k grid=(1) block=(1) args=(y)", nlohmann::json{{"B", {1.5}}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "tune.B");
}

}  // namespace
}  // namespace kwb::spec
