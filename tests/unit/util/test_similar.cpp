#include <gtest/gtest.h>

#include "util/similar.hpp"

namespace {

using kwb::util::closest_name;
using kwb::util::edit_distance;

TEST(Similar, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("submit", "submit"), 0u);
  EXPECT_EQ(edit_distance("sumbit", "submit"), 1u);  // a swap of neighbours
  EXPECT_EQ(edit_distance("submt", "submit"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Similar, ClosestNameOnlyWhenCloseEnough) {
  std::vector<std::string> known = {"submit", "status", "list", "serve"};
  EXPECT_EQ(closest_name("sumbit", known), "submit");
  EXPECT_EQ(closest_name("stat", known), "status");  // a prefix
  EXPECT_EQ(closest_name("frobnicate", known), std::nullopt);
  std::vector<std::string> entries = {"kwb_softmax_f32"};
  EXPECT_EQ(closest_name("kwb_sofmax_f32", entries), "kwb_softmax_f32");
}

}  // namespace
