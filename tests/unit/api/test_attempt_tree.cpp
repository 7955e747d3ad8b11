// Attempts as a forest (api/attempt_tree.hpp): each hung under its parent when the parent is in
// the answer (else a root), oldest first; the verified best (accepted; promotable first, then
// fastest against the incumbent, then earliest) and the latest marked on the node and by id.
#include <gtest/gtest.h>

#include "api/attempt_tree.hpp"

namespace kwb::api {
namespace {

store::AttemptRow attempt(const std::string& id, int64_t seq, std::optional<std::string> parent,
                          std::optional<std::string> status = std::nullopt, std::optional<double> speedup = std::nullopt,
                          std::optional<bool> promotable = std::nullopt) {
  store::AttemptRow r;
  r.id = id;
  r.seq = seq;
  r.parent = std::move(parent);
  r.status = std::move(status);
  r.state = r.status ? "done" : "queued";
  r.geomean_vs_incumbent = speedup;
  r.promotable = promotable;
  r.comparison = "none";
  return r;
}

TEST(AttemptTree, ChildrenHangUnderTheirParentsWithTheBestAndTheLatestMarked) {
  store::AttemptRows set;
  set.rows = {attempt("e", 5, "c"), attempt("d", 4, "b", "incorrect"), attempt("c", 3, "a", "accepted", 1.4),
              attempt("b", 2, "a", "accepted", 1.2, true), attempt("a", 1, std::nullopt, "compile_error")};
  set.rows[4].reason = "compile error: x.cpp:3: expected ';'\nmore";
  set.total = 5;
  auto out = attempt_forest(set, 100);
  EXPECT_EQ(out["best"], "b") << "promotable beats a faster one that is not";
  EXPECT_EQ(out["latest"], "e");
  EXPECT_EQ(out["count"], 5);
  EXPECT_EQ(out["truncated"], false);
  ASSERT_EQ(out["roots"].size(), 1u);
  const auto& a = out["roots"][0];
  EXPECT_EQ(a["id"], "a");
  EXPECT_EQ(a["reason"], "compile error: x.cpp:3: expected ';'");
  ASSERT_EQ(a["children"].size(), 2u);
  EXPECT_EQ(a["children"][0]["id"], "b");  // oldest first
  EXPECT_EQ(a["children"][0]["best"], true);
  EXPECT_EQ(a["children"][0]["children"][0]["id"], "d");
  EXPECT_EQ(a["children"][1]["children"][0]["id"], "e");
  EXPECT_EQ(a["children"][1]["children"][0]["latest"], true);
  EXPECT_EQ(a["best"], false);
  EXPECT_EQ(a["latest"], false);
  EXPECT_TRUE(a["geomean_vs_incumbent"].is_null());
  EXPECT_EQ(a["children"][1]["geomean_vs_incumbent"], 1.4);
}

TEST(AttemptTree, TheBestIsAcceptedThenFastestThenEarliest) {
  using V = std::vector<store::AttemptRow>;
  EXPECT_EQ(best_attempt(V{attempt("a", 1, {}, "incorrect", 9.0, true)}), std::nullopt) << "only accepted ones";
  EXPECT_EQ(best_attempt(V{attempt("a", 1, {}, "accepted", 1.1), attempt("b", 2, {}, "accepted", 1.3)}), "b");
  EXPECT_EQ(best_attempt(V{attempt("a", 1, {}, "accepted", 0.9), attempt("b", 2, {}, "accepted")}), "a")
      << "compared, even slower, above not compared";
  EXPECT_EQ(best_attempt(V{attempt("a", 1, {}, "accepted"), attempt("b", 2, {}, "accepted")}), "a") << "earliest";
  EXPECT_EQ(latest_attempt(V{attempt("a", 3, {}), attempt("b", 2, {})}), "a");
  EXPECT_EQ(latest_attempt(V{}), std::nullopt);
}

TEST(AttemptTree, ANodeWhoseParentIsNotInTheAnswerIsARoot) {
  store::AttemptRows set;
  set.rows = {attempt("c", 3, "b"), attempt("b", 2, "gone")};
  set.total = 7;
  auto out = attempt_forest(set, 2);
  EXPECT_EQ(out["truncated"], true);
  EXPECT_EQ(out["total"], 7);
  EXPECT_EQ(out["limit"], 2);
  EXPECT_TRUE(out["best"].is_null());
  ASSERT_EQ(out["roots"].size(), 1u);
  EXPECT_EQ(out["roots"][0]["parent"], "gone");
  EXPECT_EQ(out["roots"][0]["children"][0]["id"], "c");
  EXPECT_EQ(attempt_forest({}, 10)["roots"], nlohmann::json::array());
}

}  // namespace
}  // namespace kwb::api
