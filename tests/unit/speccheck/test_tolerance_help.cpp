// Check 11, the tolerance headroom (speccheck/tolerance_help.hpp), against in-test references and
// templates (lambdas): the share of the tolerance a same-precision kernel uses becomes a note, a
// warning under 2x headroom, an error past the tolerance; the workloads include edge probes and
// drawn shapes.
#include <gtest/gtest.h>

#include "spec_text.hpp"
#include "speccheck/tolerance_help.hpp"

namespace kwb::speccheck::test {
namespace {

core::Spec spec_with_template() {
  auto spec = parse(vector_spec(R"({"atol": 0, "rtol": 1e-5})", "f32", "", R"([{"name": "normal", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1}}}])",
                                R"("shapes": {"ranges": {"n": "1..5000"}},)"));
  spec.templates["cpu"]["f32"] = {"template.f32.cpp", "// a same-precision kernel"};
  spec.file = "vec/spec.json";
  return spec;
}

// A "template" off by a relative `error` everywhere.
TemplateOpener off_by(double error, int* opened = nullptr) {
  return [error, opened](const core::Spec&, const core::Variant&) -> util::Result<std::shared_ptr<eval::Reference>> {
    if (opened) ++*opened;
    return std::make_shared<LambdaReference>([error](const core::ReferenceArgs& a) {
      const float* x = a.in<float>("x");
      for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] = double(x[i]) * (1 + error);
    });
  };
}

std::vector<Problem> run(const core::Spec& spec, const TemplateOpener& open) {
  Findings out("vec/spec.json", "vec/reference.cpp");
  LambdaReference ref(copy_x);
  check_tolerance_headroom(spec, ref, open, ReferenceCheckOptions{}, out);
  return out.problems();
}

TEST(ToleranceHelp, TheHeadroomIsANotePerOutputAndDistribution) {
  int opened = 0;
  auto problems = run(spec_with_template(), off_by(3e-6, &opened));
  EXPECT_EQ(opened, 1);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);
  EXPECT_EQ(problems[0].severity, Severity::note);
  EXPECT_EQ(problems[0].field, "variants[0].tolerance.y");
  EXPECT_NE(problems[0].message.find("y under distribution normal: the CPU template (template.f32.cpp, a "
                                     "same-precision kernel)"),
            std::string::npos)
      << problems[0].message;
  EXPECT_NE(problems[0].message.find("uses at most 30 % of the tolerance (atol 0, rtol 1e-05): 3.33x headroom"),
            std::string::npos)
      << problems[0].message;
}

TEST(ToleranceHelp, LessThanTwiceTheErrorIsAWarning) {
  auto problems = run(spec_with_template(), off_by(7e-6));
  ASSERT_EQ(matching(problems, Severity::warning, "variants[0].tolerance.y", "uses 70 % of the tolerance"), 1u)
      << dump(problems);
}

TEST(ToleranceHelp, ATemplateThatMissesTheToleranceIsAnError) {
  auto problems = run(spec_with_template(), off_by(2e-5));
  ASSERT_EQ(matching(problems, Severity::error, "variants[0].tolerance.y", "misses the tolerance (atol 0, rtol 1e-05) by 2x"),
            1u)
      << dump(problems);
}

TEST(ToleranceHelp, NoTemplateNoCheck) {
  auto spec = spec_with_template();
  spec.templates.clear();
  int opened = 0;
  EXPECT_TRUE(run(spec, off_by(1, &opened)).empty());
  EXPECT_EQ(opened, 0);
}

TEST(ToleranceHelp, RunsTestWorkloadsEdgeProbesAndDrawnShapes) {
  auto ws = headroom_workloads(spec_with_template(), 1);
  ASSERT_GE(ws.size(), 4u + 2u + 3u);
  EXPECT_EQ(ws[0].name, "n1");
  EXPECT_EQ(ws[4].name, "probe:n=2");  // n=1 is a published workload already
  EXPECT_EQ(ws[5].name, "probe:n=3");
  EXPECT_TRUE(ws[4].drawn);
  size_t drawn = 0;
  for (const auto& w : ws) drawn += w.name.starts_with("drawn:");
  EXPECT_GE(drawn, 3u);
}

}  // namespace
}  // namespace kwb::speccheck::test
