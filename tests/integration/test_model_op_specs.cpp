// The spec format for model ops end to end (docs/specs.md), on the spec cases of
// tests/integration/spec_cases: cross_entropy (labels bounded by a param, a double scalar passed
// to the kernel, an optional tensor) and topk (an index output compared as a set, ties included)
// pass `kwb spec check --strict`, their CPU templates are accepted by `kwb eval`, and wrong
// kernels are caught: labels ignored, the scalar ignored, indices off by one, the max repeated.
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

using namespace kwb::test;

std::filesystem::path cases() { return source_dir() / "tests" / "integration" / "spec_cases"; }

EvalResult eval_case(const std::string& file, const std::string& op, const std::string& extra = "") {
  return kwb_eval_json((cases() / file).string(),
                       "--op " + op + " --no-bench --specs " + shell_quote(cases().string()) + " " + extra);
}

TEST(ModelOpSpecs, PassTheStrictCheckWithTheirTemplatesMeasured) {
  for (const char* op : {"cross_entropy", "topk"}) {
    SCOPED_TRACE(op);
    auto r = run_command(kwb_command("spec check " + shell_quote((cases() / op).string()) + " --strict --json"));
    EXPECT_EQ(r.exit_code, 0) << r.out;
    auto problems = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(problems.is_array()) << r.out;
    size_t notes = 0;
    for (const auto& p : problems) {
      EXPECT_EQ(p["severity"], "note") << p.dump();
      notes += p["message"].get<std::string>().find("a same-precision kernel") != std::string::npos;
    }
    EXPECT_GE(notes, 4u) << "one headroom note per variant, output and distribution";
  }
}

TEST(ModelOpSpecs, TemplatesAreAcceptedWithScalarsOptionalTensorsAndTies) {
  for (const auto& [file, op, variant] :
       {std::tuple{"cross_entropy/template.bf16.cpp", "cross_entropy", "bf16"},
        {"cross_entropy/template.bf16_weighted.cpp", "cross_entropy", "bf16_weighted"},
        {"topk/template.f32.cpp", "topk", "f32"}}) {
    SCOPED_TRACE(file);
    auto r = eval_case(file, op, std::string("--variant ") + variant);
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
                        Wrong{"topk_index_off_by_one.cpp", "topk", "but values["},
                        Wrong{"topk_repeats_the_max.cpp", "topk", "(compared as a set per row)"}}) {
    SCOPED_TRACE(w.file);
    auto r = eval_case(w.file, w.op);
    ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
    EXPECT_EQ(r.verdict["status"], "incorrect") << r.verdict["reason"];
    EXPECT_NE(r.verdict["reason"].get<std::string>().find(w.reason), std::string::npos) << r.verdict["reason"];
  }
}

TEST(ModelOpSpecs, TheScalarReachesTheKernelAsADouble) {
  // The smoothing-blind kernel is right exactly where the smoothing is 0.
  auto r = eval_case("cross_entropy_no_smoothing.cpp", "cross_entropy");
  ASSERT_FALSE(r.verdict.is_discarded()) << r.raw;
  for (const auto& w : r.verdict["workloads"]) {
    const std::string name = w["name"];
    if (name == "3x31" || name == "131x33") EXPECT_FALSE(w["correct"].get<bool>()) << name << ": smoothing 0.1, 0.2";
    if (name == "1x7" || name == "37x129") EXPECT_TRUE(w["correct"].get<bool>()) << name << ": smoothing 0";
  }
}

}  // namespace
