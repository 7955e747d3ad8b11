// The shipped model ops (docs/specs.md "Shipped model ops") end to end: each spec of specs/ passes
// `kwb spec check --strict` with its CPU template measured, its CPU template and its CPU incumbent
// (kernels/<op>/cpu) are accepted by `kwb eval`, and the wrong-on-purpose kernels of
// tests/integration/spec_cases are `incorrect`, each where its mistake shows: cross_entropy with
// its labels ignored, its label smoothing ignored, its row max forgotten; topk with its indices off
// by one, the row max repeated or ties broken wrongly (one element per distinct value); fp8_quant
// with its scales per tensor instead of per token, or its e4m3 rounding truncated.
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

using namespace kwb::test;

std::filesystem::path cases() { return source_dir() / "tests" / "integration" / "spec_cases"; }
std::filesystem::path specs() { return source_dir() / "specs"; }

EvalResult eval_no_bench(const std::filesystem::path& file, const std::string& op, const std::string& extra = "") {
  return kwb_eval_json(file.string(), "--op " + op + " --no-bench " + extra);
}

TEST(ModelOpSpecs, PassTheStrictCheckWithTheirTemplatesMeasured) {
  for (const auto& dir : {specs() / "cross_entropy", specs() / "topk", specs() / "fp8_quant"}) {
    SCOPED_TRACE(dir.string());
    auto r = run_command(kwb_command("spec check " + shell_quote(dir.string()) + " --strict --json"));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    auto problems = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(problems.is_array()) << r.out;
    size_t notes = 0;
    for (const auto& p : problems) {
      EXPECT_EQ(p["severity"], "note") << p.dump();
      notes += p["message"].get<std::string>().find("a same-precision kernel") != std::string::npos;
    }
    EXPECT_GE(notes, 2u) << "one headroom note per variant, output and distribution";
  }
}

TEST(ModelOpSpecs, TemplatesAndIncumbentsAreAcceptedWithScalarsAndTies) {
  struct Accepted {
    std::filesystem::path file;
    const char* op;
    const char* variant;
  };
  const auto kernels = source_dir() / "kernels";
  for (const auto& a : {Accepted{specs() / "cross_entropy" / "template.bf16.cpp", "cross_entropy", "bf16"},
                        Accepted{kernels / "cross_entropy" / "cpu" / "lanes.cpp", "cross_entropy", "bf16"},
                        Accepted{specs() / "topk" / "template.f32.cpp", "topk", "f32"},
                        Accepted{kernels / "topk" / "cpu" / "threshold.cpp", "topk", "f32"},
                        Accepted{specs() / "fp8_quant" / "template.bf16_per_token.cpp", "fp8_quant", "bf16_per_token"},
                        Accepted{kernels / "fp8_quant" / "cpu" / "lanes_per_token.cpp", "fp8_quant", "bf16_per_token"},
                        Accepted{specs() / "fp8_quant" / "template.bf16_per_block.cpp", "fp8_quant", "bf16_per_block"},
                        Accepted{kernels / "fp8_quant" / "cpu" / "lanes_per_block.cpp", "fp8_quant", "bf16_per_block"}}) {
    SCOPED_TRACE(a.file.string());
    auto r = eval_no_bench(a.file, a.op, std::string("--variant ") + a.variant);
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], "accepted") << r.verdict["reason"];
    int drawn = 0;
    for (const auto& w : r.verdict["workloads"]) drawn += w["drawn"].get<bool>();
    EXPECT_EQ(drawn, 3);
  }
}

TEST(ModelOpSpecs, WrongKernelsAreCaught) {
  struct Wrong {
    const char* file;
    const char* op;
    const char* reason;
  };
  for (const auto& w : {Wrong{"cross_entropy_ignores_labels.cpp", "cross_entropy", "output loss: "},
                        Wrong{"cross_entropy_no_smoothing.cpp", "cross_entropy", "output loss: "},
                        Wrong{"cross_entropy_no_max.cpp", "cross_entropy", "(inputs: peaked)"},
                        Wrong{"topk_index_off_by_one.cpp", "topk", "(compared as a set per row)"},
                        Wrong{"topk_repeats_the_max.cpp", "topk", "(compared as a set per row)"},
                        Wrong{"topk_skips_equal_values.cpp", "topk", "(compared as a set per row)"},
                        Wrong{"fp8_quant_per_tensor_scale.cpp", "fp8_quant", "output q: "},
                        Wrong{"fp8_quant_truncates.cpp", "fp8_quant", "output q: "}}) {
    SCOPED_TRACE(w.file);
    auto r = eval_no_bench(cases() / w.file, w.op);
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
    EXPECT_NE(r.verdict["reason"].get<std::string>().find(w.reason), std::string::npos) << r.verdict["reason"];
  }
}

TEST(ModelOpSpecs, TheScalarReachesTheKernelAsADouble) {
  // The smoothing-blind kernel is right exactly where the smoothing is 0.
  auto r = eval_no_bench(cases() / "cross_entropy_no_smoothing.cpp", "cross_entropy");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  for (const auto& w : r.verdict["workloads"]) {
    const std::string name = w["name"];
    if (name == "3x31" || name == "131x33") {
      EXPECT_FALSE(w["correct"].get<bool>()) << name << ": smoothing 0.1, 0.2";
    }
    if (name == "1x7" || name == "37x129") {
      EXPECT_TRUE(w["correct"].get<bool>()) << name << ": smoothing 0";
    }
  }
}

}  // namespace
