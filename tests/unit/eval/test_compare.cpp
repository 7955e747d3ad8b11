#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "eval/compare.hpp"

namespace kwb::eval {
namespace {

using core::DType;
using core::Tolerance;

const double k_nan = std::numeric_limits<double>::quiet_NaN();
const double k_inf = std::numeric_limits<double>::infinity();

Tolerance exact() {
  Tolerance t;
  t.exact = true;
  return t;
}
Tolerance tol(double atol, double rtol) {
  Tolerance t;
  t.atol = atol;
  t.rtol = rtol;
  return t;
}

Comparison cmp(const std::vector<float>& got, const std::vector<double>& want, const Tolerance& t,
               std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {int64_t(want.size())};
  return compare_output(got.data(), DType::f32, want, t, shape, "y");
}

float poison_f32() { return std::bit_cast<float>(0xffffffffu); }

TEST(Unravel, RowMajorCoordinates) {
  EXPECT_EQ(unravel(0, {3, 4}), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(unravel(6, {3, 4}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(unravel(11, {3, 4}), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(unravel(23, {2, 3, 4}), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(unravel(5, {7}), (std::vector<int64_t>{5}));
  EXPECT_TRUE(unravel(0, {}).empty());
}

TEST(CompareOutput, AllEqualIsOk) {
  auto c = cmp({1, 2, 3}, {1, 2, 3}, exact());
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.first_bad, -1);
  EXPECT_FALSE(c.first.has_value());
  EXPECT_EQ(c.max_abs_err, 0);
  EXPECT_EQ(c.max_rel_err, 0);
}

TEST(CompareOutput, ExactComparesValuesExactly) {
  EXPECT_FALSE(cmp({1.0000001f}, {1.0}, exact()).ok());
  EXPECT_TRUE(cmp({0.5f}, {0.5}, exact()).ok());
  // Under exact tolerance the sign of zero matters (a copy must keep -0).
  EXPECT_FALSE(cmp({0.0f}, {-0.0}, exact()).ok());
  EXPECT_FALSE(cmp({-0.0f}, {0.0}, exact()).ok());
  // atol = rtol = 0 is exact too, including the sign of zero.
  EXPECT_FALSE(cmp({0.0f}, {-0.0}, tol(0, 0)).ok());
  EXPECT_FALSE(cmp({1.0000001f}, {1.0}, tol(0, 0)).ok());
  // Under a nonzero tolerance the sign of zero does not matter.
  EXPECT_TRUE(cmp({0.0f}, {-0.0}, tol(1e-9, 0)).ok());
  EXPECT_TRUE(cmp({-0.0f}, {0.0}, tol(0, 1e-6)).ok());
}

TEST(CompareOutput, ToleranceIsAbsolutePlusRelative) {
  // |got - want| <= atol + rtol * |want|: 0.01 + 0.01 * 100 = 1.01
  EXPECT_TRUE(cmp({101.0f}, {100.0}, tol(0.01, 0.01)).ok());
  EXPECT_FALSE(cmp({101.5f}, {100.0}, tol(0.01, 0.01)).ok());
  EXPECT_TRUE(cmp({99.0f}, {100.0}, tol(0.01, 0.01)).ok());
  EXPECT_TRUE(cmp({0.005f}, {0.0}, tol(0.01, 0)).ok());
  EXPECT_FALSE(cmp({0.02f}, {0.0}, tol(0.01, 0)).ok());
  auto c = cmp({1.25f, 2.0f}, {1.0, 2.0}, tol(0, 0));
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_err, 0.25);
  EXPECT_DOUBLE_EQ(c.max_rel_err, 0.25);
}

TEST(CompareOutput, NanExpectedRequiresNan) {
  EXPECT_TRUE(cmp({NAN}, {k_nan}, tol(1, 1)).ok());
  EXPECT_TRUE(cmp({NAN}, {k_nan}, exact()).ok());
  EXPECT_FALSE(cmp({1.0f}, {k_nan}, tol(1e30, 1e30)).ok());
  EXPECT_FALSE(cmp({INFINITY}, {k_nan}, tol(1e30, 1e30)).ok());
  auto c = cmp({NAN}, {1.0}, tol(1e30, 1e30));
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(std::isinf(c.max_abs_err));
  EXPECT_TRUE(std::isinf(c.max_rel_err));
}

TEST(CompareOutput, InfinitiesMustMatch) {
  EXPECT_TRUE(cmp({INFINITY, -INFINITY}, {k_inf, -k_inf}, tol(0, 0)).ok());
  EXPECT_FALSE(cmp({-INFINITY}, {k_inf}, tol(1e30, 1e30)).ok());
  EXPECT_FALSE(cmp({3.0e38f}, {k_inf}, tol(1e30, 1e30)).ok());
  auto c = cmp({INFINITY}, {1.0}, tol(1e30, 1e30));
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(std::isinf(c.max_abs_err));
}

TEST(CompareOutput, PoisonIsCounted) {
  const float quiet_nan = std::bit_cast<float>(0x7fc00000u);  // a NaN, but not the poison pattern
  auto c = cmp({poison_f32(), 2.0f, poison_f32(), quiet_nan}, {1, 2, 3, 4}, tol(0.1, 0));
  EXPECT_EQ(c.mismatches, 3);
  EXPECT_EQ(c.poisoned, 2);
  // An expected NaN matched by the poison (itself a NaN) is a match, not a poisoned mismatch.
  auto n = cmp({poison_f32()}, {k_nan}, tol(0, 0));
  EXPECT_TRUE(n.ok());
  EXPECT_EQ(n.poisoned, 0);
}

TEST(CompareOutput, PoisonByteIsConfigurable) {
  // Second run: outputs poisoned with 0x7F bytes (a large finite float), so an unwritten element
  // also fails where NaN is expected, and is counted as poisoned.
  const float p7f = std::bit_cast<float>(0x7f7f7f7fu);
  const std::vector<float> got = {p7f, 2.0f, p7f};
  auto c = compare_output(got.data(), DType::f32, {k_nan, 2.0, 3.0}, tol(0.1, 0), {3}, "y", 0x7f);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.poisoned, 2);
  // The same bytes are not poison under the default 0xFF pattern.
  auto d = compare_output(got.data(), DType::f32, {k_nan, 2.0, 3.0}, tol(0.1, 0), {3}, "y");
  EXPECT_EQ(d.mismatches, 2);
  EXPECT_EQ(d.poisoned, 0);
}

TEST(CompareOutput, PoisonInIntegerOutputs) {
  const int32_t got[] = {-1, 5, 7};  // -1 is all 0xFF bytes
  auto c = compare_output(got, DType::i32, {3, 5, 6}, exact(), {3}, "count");
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.poisoned, 1);
  ASSERT_TRUE(c.first.has_value());
  EXPECT_EQ(c.first->tensor, "count");
  EXPECT_EQ(c.first->got, -1);
  EXPECT_EQ(c.first->expected, 3);
}

TEST(CompareOutput, FirstMismatchCoordinatesIn2D) {
  std::vector<float> got(12, 1.0f);
  std::vector<double> want(12, 1.0);
  got[6] = 5.0f;   // [1, 2]
  got[11] = 7.0f;  // [2, 3]
  auto c = cmp(got, want, tol(0.01, 0), {3, 4});
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.first_bad, 6);
  EXPECT_EQ(c.last_bad, 11);
  ASSERT_TRUE(c.first.has_value());
  EXPECT_EQ(c.first->tensor, "y");
  EXPECT_EQ(c.first->index, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(c.first->got, 5.0);
  EXPECT_EQ(c.first->expected, 1.0);
  EXPECT_EQ(c.bad_rows, (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(c.max_abs_err, 6.0);
}

TEST(CompareOutput, MaxRelIgnoresExpectedValuesBelowAtol) {
  // Element 0: |want| = 0.001 <= atol, its relative error (1.0) means nothing and is ignored.
  // Element 1: relative error 0.001.
  auto c = cmp({0.002f, 10.01f}, {0.001, 10.0}, tol(0.01, 0.01));
  EXPECT_TRUE(c.ok());
  EXPECT_NEAR(c.max_rel_err, 0.001, 1e-6);
  EXPECT_NEAR(c.max_abs_err, 0.01, 1e-6);
  // An expected zero within atol does not make the relative error infinite.
  auto z = cmp({0.005f}, {0.0}, tol(0.01, 0));
  EXPECT_TRUE(z.ok());
  EXPECT_EQ(z.max_rel_err, 0);
}

// A mismatch on an element whose |want| <= atol has a finite relative error: the reported maximum
// must stay finite (infinity is for NaN/Inf results), like max_abs_err does.
TEST(CompareOutput, MaxRelStaysFiniteForAMismatchBelowAtol) {
  auto c = cmp({3.0f, 10.0f}, {0.5, 10.0}, tol(1.0, 0));
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_err, 2.5);
  EXPECT_TRUE(std::isfinite(c.max_rel_err)) << c.max_rel_err;
}

TEST(CompareOutput, Bf16OutputsAreDecoded) {
  const uint16_t got[] = {0x3f80, 0x4000, 0x7f80};  // 1, 2, +Inf
  auto c = compare_output(got, DType::bf16, {1.0, 2.0, k_inf}, exact(), {3}, "y");
  EXPECT_TRUE(c.ok());
  auto bad = compare_output(got, DType::bf16, {1.0, 2.5, k_inf}, exact(), {3}, "y");
  EXPECT_EQ(bad.mismatches, 1);
  EXPECT_EQ(bad.first->index, (std::vector<int64_t>{1}));
}

// --- describe_mismatch --------------------------------------------------------------------

std::string describe(const std::vector<float>& got, const std::vector<double>& want, const Tolerance& t,
                     const std::vector<int64_t>& shape) {
  auto c = compare_output(got.data(), DType::f32, want, t, shape, "y");
  EXPECT_FALSE(c.ok());
  if (c.ok()) return "";
  return describe_mismatch(c, t, want.size(), shape, "y");
}

TEST(DescribeMismatch, SummaryLine) {
  std::vector<float> got(10, 1.0f);
  got[4] = 2.0f;
  const std::string s = describe(got, std::vector<double>(10, 1.0), tol(0.001, 0.0001), {10});
  EXPECT_NE(s.find("output y: 1 of 10 elements wrong"), std::string::npos) << s;
  EXPECT_NE(s.find("first at [4]"), std::string::npos) << s;
  EXPECT_NE(s.find("got 2, expected 1"), std::string::npos) << s;
  EXPECT_NE(s.find("atol 0.001, rtol 0.0001"), std::string::npos) << s;
  const std::string e = describe(got, std::vector<double>(10, 1.0), exact(), {10});
  EXPECT_NE(e.find("(exact)"), std::string::npos) << e;
}

TEST(DescribeMismatch, OnlyRowZeroIsRight) {
  const std::vector<int64_t> shape = {4, 8};
  std::vector<double> want(32, 1.0);
  std::vector<float> got(32, 0.0f);
  for (int i = 0; i < 8; ++i) got[size_t(i)] = 1.0f;
  const std::string s = describe(got, want, tol(0.01, 0), shape);
  EXPECT_NE(s.find("only row 0 is right"), std::string::npos) << s;
  EXPECT_NE(s.find("24 of 32 elements wrong"), std::string::npos) << s;
  EXPECT_NE(s.find("first at [1, 0]"), std::string::npos) << s;
  EXPECT_EQ(s.find("never written"), std::string::npos) << s;
}

TEST(DescribeMismatch, OnlyTheLastElementsAreWrong) {
  std::vector<double> want(100, 1.0);
  std::vector<float> got(100, 1.0f);
  got[97] = got[98] = got[99] = 0.0f;
  const std::string s = describe(got, want, tol(0.01, 0), {100});
  EXPECT_NE(s.find("only the last 3 elements are wrong"), std::string::npos) << s;
  EXPECT_EQ(s.find("a single element"), std::string::npos) << s;
}

// In a 2-D output with two rows, a tail bug in the last row is a tail bug, not "only row 0 is
// right" (13 of the 16 elements are right).
TEST(DescribeMismatch, TailBugInTwoRowOutputIsNotOnlyRowZero) {
  std::vector<double> want(16, 1.0);
  std::vector<float> got(16, 1.0f);
  got[13] = got[14] = got[15] = 0.0f;
  const std::string s = describe(got, want, tol(0.01, 0), {2, 8});
  EXPECT_EQ(s.find("only row 0 is right"), std::string::npos) << s;
  EXPECT_NE(s.find("only the last 3 elements are wrong"), std::string::npos) << s;
}

TEST(DescribeMismatch, NeverWritten) {
  std::vector<double> want(10, 1.0);
  std::vector<float> got(10, 1.0f);
  got[2] = poison_f32();
  got[5] = poison_f32();
  const std::string s = describe(got, want, tol(0.01, 0), {10});
  EXPECT_NE(s.find("they were never written"), std::string::npos) << s;

  std::vector<float> one(10, 1.0f);
  one[9] = poison_f32();
  const std::string t = describe(one, want, tol(0.01, 0), {10});
  EXPECT_NE(t.find("it was never written"), std::string::npos) << t;
  EXPECT_NE(t.find("only the last 1 elements are wrong"), std::string::npos) << t;

  // One written-but-wrong element among poisoned ones: not all were unwritten.
  got[7] = 3.0f;
  const std::string u = describe(got, want, tol(0.01, 0), {10});
  EXPECT_EQ(u.find("never written"), std::string::npos) << u;
}

TEST(DescribeMismatch, ASingleElementIsWrong) {
  std::vector<double> want(100, 1.0);
  std::vector<float> got(100, 1.0f);
  got[50] = 2.0f;
  const std::string s = describe(got, want, tol(0.01, 0), {100});
  EXPECT_NE(s.find("a single element is wrong"), std::string::npos) << s;
  EXPECT_EQ(s.find("only the last"), std::string::npos) << s;
}

TEST(DescribeMismatch, ScatteredErrorsGetNoShapeHint) {
  std::vector<double> want(100, 1.0);
  std::vector<float> got(100, 1.0f);
  got[10] = got[50] = got[70] = 2.0f;
  const std::string s = describe(got, want, tol(0.01, 0), {100});
  EXPECT_NE(s.find("3 of 100 elements wrong"), std::string::npos) << s;
  for (const char* hint : {"only row 0", "only the last", "single element", "never written"})
    EXPECT_EQ(s.find(hint), std::string::npos) << hint << " in: " << s;
}

}  // namespace
}  // namespace kwb::eval
