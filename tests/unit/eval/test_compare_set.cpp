// Set outputs (eval/compare_set.cpp, docs/specs.md "Set outputs"): a top-k's indices and values
// compared as a set per row, where ties make several answers right.
#include <gtest/gtest.h>

#include <vector>

#include "eval/compare.hpp"

namespace kwb::eval {
namespace {

using core::DType;

// Two rows of 5: row 0 has a tie (3.0 twice), row 1 a NaN-free ordinary row.
const std::vector<float> k_x = {1.0f, 3.0f, 0.5f, 3.0f, 2.0f, /**/ -1.0f, 4.0f, 0.0f, 2.5f, -3.0f};
const std::vector<int64_t> k_shape = {2, 2};  // top-2 of each row
const std::vector<double> k_want_idx = {1, 3, 1, 3};  // indices within a row; ties: the first 3.0
const std::vector<double> k_want_val = {3.0, 3.0, 4.0, 2.5};

SetComparison run(const std::vector<int32_t>& idx, const std::vector<float>& val, bool with_values = true) {
  core::Tolerance tol;
  tol.atol = 1e-6;
  return compare_set({idx.data(), DType::i32}, k_want_idx, with_values ? TensorView{val.data(), DType::f32} : TensorView{},
                     with_values ? &k_want_val : nullptr, {k_x.data(), DType::f32}, 5, tol, k_shape, "idx", "val");
}

TEST(CompareSet, AnyOrderAndEitherTiedIndexIsRight) {
  auto same = run({1, 3, 1, 3}, {3, 3, 4, 2.5f});  // row 1's indices 1, 3 of the row: 4.0 and 2.5
  EXPECT_TRUE(same.indices.ok()) << same.indices.detail;
  EXPECT_TRUE(same.values.ok()) << same.values.detail;
  auto swapped = run({3, 1, 3, 1}, {3, 3, 2.5f, 4});
  EXPECT_TRUE(swapped.indices.ok()) << swapped.indices.detail;
  EXPECT_TRUE(swapped.values.ok()) << swapped.values.detail;
}

TEST(CompareSet, WrongValuesAreCaughtAsAMultiset) {
  auto c = run({1, 4, 1, 3}, {3, 2, 4, 2.5f});  // 2.0 is not a top-2 value of row 0
  EXPECT_TRUE(c.indices.ok()) << c.indices.detail;  // the index points at the value it reports
  ASSERT_FALSE(c.values.ok());
  EXPECT_EQ(c.values.mismatches, 1);
  EXPECT_NE(c.values.detail.find("row 0 as a multiset"), std::string::npos) << c.values.detail;
}

TEST(CompareSet, IndicesMustPointAtTheirValuesBeDistinctAndInRange) {
  auto off = run({1, 3, 1, 0}, {3, 3, 4, 2.5f});  // index 0 of row 1 holds -1, not 2.5
  ASSERT_FALSE(off.indices.ok());
  EXPECT_EQ(off.indices.first->index, (std::vector<int64_t>{1, 1}));
  EXPECT_NE(off.indices.detail.find("points at -1, but val[1, 1] reports 2.5"), std::string::npos) << off.indices.detail;
  auto twice = run({1, 1, 1, 3}, {3, 3, 4, 2.5f});  // the same 3.0 twice
  ASSERT_FALSE(twice.indices.ok());
  EXPECT_NE(twice.indices.detail.find("appears twice in row 0"), std::string::npos);
  auto outside = run({1, 3, 1, 5}, {3, 3, 4, 2.5f});
  ASSERT_FALSE(outside.indices.ok());
  EXPECT_NE(outside.indices.detail.find("outside [0, 5)"), std::string::npos);
  auto unwritten = run({1, 3, -1, -1}, {3, 3, 4, 2.5f});  // 0xff bytes: -1
  EXPECT_EQ(unwritten.indices.poisoned, 2);
  EXPECT_NE(describe_mismatch(unwritten.indices, {}, 4, k_shape, "idx").find("compared as a set per row"),
            std::string::npos);
}

TEST(CompareSet, WithoutValuesTheSelectionMustMatch) {
  EXPECT_TRUE(run({3, 1, 3, 1}, {}, false).indices.ok());
  auto c = run({1, 4, 1, 3}, {}, false);  // selects 3.0 and 2.0 in row 0: the expected selection is 3.0, 3.0
  ASSERT_FALSE(c.indices.ok());
  EXPECT_NE(c.indices.detail.find("row 0 selects other elements than expected"), std::string::npos) << c.indices.detail;
}

}  // namespace
}  // namespace kwb::eval
