// The reference checks against in-test references (lambdas): each defect is found, named by
// tensor, index, workload and distribution, and a sound reference passes.
#include <gtest/gtest.h>

#include <cmath>

#include "spec_text.hpp"
#include "speccheck/reference_checks.hpp"

namespace kwb::speccheck::test {
namespace {

std::vector<Problem> run(const core::Spec& spec, LambdaReference& ref) {
  Findings out("vec/spec.json", "vec/reference.cpp");
  check_reference_runs(spec, ref, ReferenceCheckOptions{}, out);
  return out.problems();
}

TEST(ReferenceChecks, ASoundReferencePasses) {
  auto spec = parse(vector_spec());
  LambdaReference ref(copy_x);
  auto problems = run(spec, ref);
  EXPECT_TRUE(problems.empty()) << dump(problems);
  EXPECT_EQ(ref.calls, 4 * 3);  // 4 test workloads x 1 distribution: two poisons and one perturbed run
}

TEST(ReferenceChecks, AnUnwrittenElementIsNamedWithItsIndex) {
  auto spec = parse(vector_spec());
  LambdaReference ref([](const core::ReferenceArgs& a) {
    const float* x = a.in<float>("x");
    for (int64_t i = 0; i < a.param("n"); ++i)
      if (i != 3) a.out("y")[i] = x[i];
  });
  auto problems = run(spec, ref);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);  // once per output, not once per run
  const auto& p = problems[0];
  EXPECT_EQ(p.file, "vec/reference.cpp");
  EXPECT_EQ(p.field, "tensors[1]");
  EXPECT_EQ(p.severity, Severity::error);
  EXPECT_NE(p.message.find("workloads.test[1] 'n7'"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("1 of 7 elements of output y are never written (first [3])"), std::string::npos) << p.message;
}

TEST(ReferenceChecks, AStaticCounterIsNotDeterministic) {
  auto spec = parse(vector_spec());
  int counter = 0;
  LambdaReference ref([&](const core::ReferenceArgs& a) {
    const float* x = a.in<float>("x");
    ++counter;
    for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] = x[i] + counter;
  });
  auto problems = run(spec, ref);
  ASSERT_EQ(matching(problems, Severity::error, "tensors[1]", "not deterministic: two runs on the same inputs differ"), 1u)
      << dump(problems);
  EXPECT_NE(problems[0].message.find("workloads.test[0] 'n1'"), std::string::npos) << problems[0].message;
}

TEST(ReferenceChecks, ReadingAnOutputBeforeWritingItIsCaught) {
  auto spec = parse(vector_spec());
  LambdaReference ref([](const core::ReferenceArgs& a) {
    const float* x = a.in<float>("x");
    for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] += x[i];  // the poison's value leaks in
  });
  auto problems = run(spec, ref);
  EXPECT_EQ(matching(problems, Severity::error, "tensors[1]", "not deterministic"), 1u) << dump(problems);
  EXPECT_EQ(matching(problems, Severity::error, "tensors[1]", "never written"), 0u) << dump(problems);
}

TEST(ReferenceChecks, NonFiniteOutputsAreErrorsUnlessTheSpecAllowsThem) {
  auto log_x = [](const core::ReferenceArgs& a) {
    const float* x = a.in<float>("x");
    for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] = std::log(double(x[i]));  // NaN below 0
  };
  {
    auto spec = parse(vector_spec());
    LambdaReference ref(log_x);
    auto problems = run(spec, ref);
    EXPECT_EQ(matching(problems, Severity::error, "tensors[1]", "are not finite"), 1u) << dump(problems);
  }
  {
    auto spec = parse(vector_spec(R"({"atol": 1e-6, "rtol": 1e-5})", "f32", R"(, "finite": false)"));
    LambdaReference ref(log_x);
    auto problems = run(spec, ref);
    EXPECT_EQ(matching(problems, Severity::error, "tensors[1]", "are not finite"), 0u) << dump(problems);
  }
}

TEST(ReferenceChecks, FinitenessIsDerivedFromTheSpecials) {
  core::TensorSpec y{"y", core::Role::out, {"n"}};
  core::Distribution plain{"plain", "", {{"x", core::Generator{}}}};
  core::Distribution zeros = plain, nans = plain;
  zeros.tensors["x"].specials = {"+0", "-0", "denormal"};
  nans.tensors["x"].specials = {"-0", "max"};
  EXPECT_TRUE(requires_finite(y, plain));
  EXPECT_TRUE(requires_finite(y, zeros));
  EXPECT_FALSE(requires_finite(y, nans));
  y.finite = true;
  EXPECT_TRUE(requires_finite(y, nans));
  y.finite = false;
  EXPECT_FALSE(requires_finite(y, plain));
}

TEST(ReferenceChecks, AToleranceTighterThanTheConditioningIsAnErrorWithTheToleranceNeeded) {
  // f64 outputs round exactly, so only the one-ulp moves of the f32 inputs (2^-24 relative) count.
  auto spec = parse(vector_spec(R"({"atol": 0, "rtol": 1e-9})", "f64"));
  LambdaReference ref(copy_x);
  auto problems = run(spec, ref);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);
  const auto& p = problems[0];
  EXPECT_EQ(p.file, "vec/spec.json");
  EXPECT_EQ(p.field, "variants[0].tolerance.y");
  EXPECT_EQ(p.severity, Severity::error);
  EXPECT_NE(p.message.find("inputs moved one ulp away from zero move y outside the tolerance"), std::string::npos);
  EXPECT_NE(p.message.find("honest kernels need about atol >= "), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("rtol >= 1.2e-07"), std::string::npos) << p.message;  // 2^-23 at most
}

TEST(ReferenceChecks, AToleranceBelowTheOutputsRoundingIsAnError) {
  auto spec = parse(vector_spec(R"({"atol": 0, "rtol": 1e-12})"));
  LambdaReference ref([](const core::ReferenceArgs& a) {
    const float* x = a.in<float>("x");
    for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] = x[i] / 3.0;  // not an f32 value
  });
  auto problems = run(spec, ref);
  EXPECT_EQ(matching(problems, Severity::error, "variants[0].tolerance.y", "rounded to f32 are outside the tolerance"), 1u)
      << dump(problems);
  EXPECT_EQ(matching(problems, Severity::error, "variants[0].tolerance.y", "no kernel can meet it"), 1u);
}

TEST(ReferenceChecks, AnExactCopyPasses) {
  auto spec = parse(vector_spec(R"({"exact": true})"));
  LambdaReference ref(copy_x);
  auto problems = run(spec, ref);
  EXPECT_TRUE(problems.empty()) << dump(problems);
}

TEST(ReferenceChecks, IsolatedSensitivityIsAWarning) {
  // Every x is 1.5; element 500 computes x - 1.5 + 1e-9, which one ulp of x (1.2e-7) moves by
  // 100x its value: one element of 1000 in one run, under the 1 % that makes an error.
  auto spec = parse(vector_spec(R"({"atol": 0, "rtol": 1e-5})", "f64", "",
                                R"([{"name": "c", "tensors": {"x": {"kind": "constant", "value": 1.5}}}])"));
  LambdaReference ref([](const core::ReferenceArgs& a) {
    const float* x = a.in<float>("x");
    for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] = i == 500 ? x[i] - 1.5 + 1e-9 : x[i];
  });
  auto problems = run(spec, ref);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);
  EXPECT_EQ(problems[0].severity, Severity::warning);
  EXPECT_EQ(problems[0].field, "variants[0].tolerance.y");
  EXPECT_NE(problems[0].message.find("element [500] on workloads.test[3] 'n1000'"), std::string::npos)
      << problems[0].message;
  EXPECT_NE(problems[0].message.find("isolated"), std::string::npos);
}

TEST(ReferenceChecks, IntegerOutputsMustBeWholeNumbersInRange) {
  auto spec = parse(vector_spec(R"({"exact": true})", "i32"));
  LambdaReference ref(copy_x);  // normal values into an i32 output
  auto problems = run(spec, ref);
  EXPECT_EQ(matching(problems, Severity::error, "tensors[1]", "which i32 cannot hold"), 1u) << dump(problems);
}

TEST(ReferenceChecks, NondeterministicSpecsCompareRunsWithinTheTolerance) {
  const std::string text = vector_spec(R"({"atol": 1e-6, "rtol": 1e-5})", "f32", "",
                                       R"([{"name": "normal", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1}}}])",
                                       R"( "deterministic": false,)");
  int calls = 0;
  auto noisy = [&](double size) {
    return [&calls, size](const core::ReferenceArgs& a) {
      const float* x = a.in<float>("x");
      ++calls;
      for (int64_t i = 0; i < a.param("n"); ++i) a.out("y")[i] = x[i] + size * (calls % 2);
    };
  };
  {
    auto spec = parse(text);
    LambdaReference ref(noisy(1e-9));
    auto problems = run(spec, ref);
    EXPECT_TRUE(problems.empty()) << dump(problems);
  }
  {
    auto spec = parse(text);
    LambdaReference ref(noisy(1e-2));
    auto problems = run(spec, ref);
    EXPECT_EQ(matching(problems, Severity::error, "tensors[1]", "beyond the tolerance"), 1u) << dump(problems);
  }
}

class FailingReference : public eval::Reference {
 public:
  util::Result<void> compute(const core::ReferenceArgs&) override {
    ++calls;
    return util::fail("", "it was killed by signal 11 (SIGSEGV)");
  }
  int calls = 0;
};

TEST(ReferenceChecks, AFailingReferenceIsReportedOnceAndStopsTheRuns) {
  auto spec = parse(vector_spec());
  FailingReference ref;
  Findings out("vec/spec.json", "vec/reference.cpp");
  check_reference_runs(spec, ref, ReferenceCheckOptions{}, out);
  ASSERT_EQ(out.problems().size(), 1u);
  EXPECT_EQ(out.problems()[0].file, "vec/reference.cpp");
  EXPECT_NE(out.problems()[0].message.find("the reference failed: it was killed by signal 11"), std::string::npos);
  EXPECT_EQ(ref.calls, 1);
}

}  // namespace
}  // namespace kwb::speccheck::test
