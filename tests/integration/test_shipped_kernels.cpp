// Every CPU kernel shipped in kernels/<op>/cpu/ is accepted by `kwb eval` against its spec.
#include <gtest/gtest.h>

#include <vector>

#include "support.hpp"

namespace {

using namespace kwb::test;

struct Shipped {
  std::string source, op, variant;
};

std::vector<Shipped> shipped_kernels() {
  std::vector<Shipped> out;
  for (const auto& meta : std::filesystem::recursive_directory_iterator(source_dir() / "kernels")) {
    if (meta.path().extension() != ".json" || meta.path().parent_path().filename() != "cpu") continue;
    auto j = nlohmann::json::parse(read_text(meta.path()), nullptr, false);
    if (j.is_discarded()) continue;
    auto src = meta.path();
    src.replace_extension(".cpp");
    out.push_back({src.string(), j.value("op", ""), j.value("variant", "")});
  }
  return out;
}

class ShippedKernel : public ::testing::TestWithParam<Shipped> {};

TEST_P(ShippedKernel, IsAccepted) {
  const auto& k = GetParam();
  auto r = kwb_eval_json(k.source, "--op " + k.op + " --variant " + k.variant + " --time-budget-ms 60");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.verdict["schema"], "kwb.verdict.v1");
  EXPECT_EQ(r.verdict["op"], k.op);
  EXPECT_EQ(r.verdict["variant"], k.variant);
  bool timed = false;
  for (const auto& w : r.verdict["workloads"]) {
    EXPECT_TRUE(w["correct"].get<bool>()) << w["name"];
    if (w["kind"] == "bench") {
      ASSERT_TRUE(w["time"].is_object()) << w["name"];
      EXPECT_GT(w["time"]["median_ns"].get<double>(), 0);
      EXPECT_GE(w["time"]["samples"].get<int>(), 1);
      timed = true;
    }
  }
  EXPECT_TRUE(timed) << "no bench workload was timed";
}

std::string name_of(const ::testing::TestParamInfo<Shipped>& info) {
  std::string n = info.param.op + "_" + info.param.variant + "_" +
                  std::filesystem::path(info.param.source).stem().string();
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShippedKernel, ::testing::ValuesIn(shipped_kernels()), name_of);

TEST(ShippedKernels, CoverEveryStarterVariant) {
  std::set<std::string> have;
  for (const auto& k : shipped_kernels()) have.insert(k.op + "/" + k.variant);
  for (const char* want : {"vector_add/f32", "row_sum/f32", "softmax/f32", "rmsnorm/f32", "layernorm/f32",
                           "transpose/f32", "gemm/f32", "gemm/bf16", "histogram/u8", "prefix_sum/i32"})
    EXPECT_TRUE(have.contains(want)) << "no shipped CPU kernel for " << want;
}

}  // namespace

namespace {

// `kwb eval --compare`: the verdict is compared with the workspace library's incumbent (here the
// shipped kernel itself, seeded into the library): identical source, so it cannot beat it.
TEST(EvalCompare, ComparesWithTheLibraryIncumbent) {
  using namespace kwb::test;
  auto shipped = source_dir() / "kernels" / "vector_add" / "cpu" / "vectorized.cpp";
  auto e = kwb_eval_json(shipped.string(), "--op vector_add --compare --bench n1M --time-budget-ms 20");
  ASSERT_TRUE(e.verdict.is_object()) << e.raw;
  EXPECT_EQ(e.exit_code, 0) << e.raw;
  const auto& s = e.verdict["summary"];
  EXPECT_EQ(s["incumbent"]["kernel"], "vector_add/cpu/vectorized.cpp") << s.dump(2);
  EXPECT_EQ(s["beats_incumbent"], false);
  EXPECT_NE(e.verdict["reason"].get<std::string>().find("identical to the incumbent"), std::string::npos)
      << e.verdict["reason"];
}

}  // namespace
