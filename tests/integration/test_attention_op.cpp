// The shipped attention op (specs/attention, kernels/attention): the spec passes `kwb spec check
// --strict` with its CPU template's headroom measured, the shipped CPU incumbent is accepted, and
// wrong kernels (tests/integration/spec_cases/attention_*.cpp) are incorrect exactly where their
// mistake shows: a causal mask off by one (not at seq 1), the wrong kv head for a q head (not
// where a kv head serves one q head, or every q head), the scale ignored (not where it is the
// default). The CUDA incumbent's compile without a GPU is CudaKernels' (tests/unit/cuda).
#include <gtest/gtest.h>

#include <map>

#include "support.hpp"

namespace {

using namespace kwb::test;

EvalResult eval_attention(const std::filesystem::path& file) {
  return kwb_eval_json(file.string(), "--op attention --variant bf16 --no-bench");
}

std::filesystem::path wrong(const std::string& name) {
  return source_dir() / "tests" / "integration" / "spec_cases" / name;
}

// workload name -> correct, for the published test workloads
std::map<std::string, bool> correct_by_workload(const nlohmann::json& verdict) {
  std::map<std::string, bool> out;
  for (const auto& w : verdict["workloads"])
    if (!w.value("drawn", false)) out[w["name"].get<std::string>()] = w["correct"].get<bool>();
  return out;
}

TEST(ModelOpAttention, PassesTheStrictCheckWithItsTemplateMeasured) {
  auto r = run_command(kwb_command("spec check " + shell_quote((source_dir() / "specs" / "attention").string()) +
                                   " --strict --json"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto problems = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << r.out;
  size_t notes = 0;
  for (const auto& p : problems) {
    EXPECT_EQ(p["severity"], "note") << p.dump();
    notes += p["message"].get<std::string>().find("a same-precision kernel") != std::string::npos;
  }
  EXPECT_EQ(notes, 3u) << "one headroom note per distribution";
}

TEST(ModelOpAttention, TheCpuIncumbentIsAccepted) {
  auto r = eval_attention(source_dir() / "kernels" / "attention" / "cpu" / "blocked.cpp");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
}

TEST(ModelOpAttention, ACausalMaskOffByOneIsCaught) {
  auto r = eval_attention(wrong("attention_causal_off_by_one.cpp"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
  EXPECT_NE(r.verdict["reason"].get<std::string>().find("output o: "), std::string::npos) << r.verdict["reason"];
  auto ok = correct_by_workload(r.verdict);
  EXPECT_TRUE(ok["b1_s1_h1_d64"]) << "one query, one key: nothing past the diagonal";
  EXPECT_FALSE(ok["b2_s3_h4kv2_d128"]);
  EXPECT_FALSE(ok["b1_s129_h4kv1_d128"]);
}

TEST(ModelOpAttention, TheWrongKvHeadIsCaught) {
  auto r = eval_attention(wrong("attention_gqa_wrong_head.cpp"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
  auto ok = correct_by_workload(r.verdict);
  EXPECT_TRUE(ok["b1_s65_h8kv8_d64"]) << "ratio 1: h % kv_heads == h";
  EXPECT_TRUE(ok["b1_s129_h4kv1_d128"]) << "one kv head serves every q head";
  EXPECT_FALSE(ok["b2_s3_h4kv2_d128"]) << "ratio 2";
  EXPECT_FALSE(ok["b1_s17_h8kv2_d64"]) << "ratio 4";
}

TEST(ModelOpAttention, TheScaleReachesTheKernelAsADouble) {
  auto r = eval_attention(wrong("attention_scale_ignored.cpp"));
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
  auto ok = correct_by_workload(r.verdict);
  for (const char* name : {"b1_s1_h1_d64", "b2_s3_h4kv2_d128", "b3_s65_h6kv3_d128", "b1_s129_h4kv1_d128"})
    EXPECT_TRUE(ok[name]) << name << ": scale 0, the default 1/sqrt(head_dim)";
  for (const char* name : {"b1_s17_h8kv2_d64", "b1_s65_h8kv8_d64", "b1_s7_h129kv43_d31"})
    EXPECT_FALSE(ok[name]) << name << ": a scale of its own";
}

}  // namespace
