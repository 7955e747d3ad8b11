// The attempts an agent made (store/lineage_query.hpp): the tree a candidate belongs to through
// its parent links (from its root down, across tokens), one token's candidates of one op, both
// newest first under a limit with their total, the fields read from the verdict and the
// comparison, and the indexes of migration 13 that answer them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "store/candidate_repository.hpp"
#include "store/database.hpp"
#include "store/lineage_query.hpp"
#include "store/token_repository.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

using test::TempDir;

std::string add(Database& db, std::optional<std::string> parent, std::optional<int64_t> token = 1,
                const std::string& op = "vector_add", const std::string& note = "") {
  CandidateRecord rec;
  rec.op = op;
  rec.backend = "cpu";
  rec.source_sha256 = std::string(64, 'a');
  rec.source_name = "k.cpp";
  rec.parent = std::move(parent);
  rec.token_id = token;
  rec.note = note;
  auto r = CandidateRepository(db).insert(rec, nullptr);
  EXPECT_TRUE(r) << r.error().what();
  return r ? r->id : "";
}

void finish(Database& db, const std::string& id, const std::string& status, nlohmann::json speedup,
            const std::string& reason, core::ComparisonState comparison = core::ComparisonState::none) {
  nlohmann::json v = {{"status", status}, {"reason", reason}, {"summary", {{"geomean_vs_incumbent", speedup}}}};
  auto done = CandidateRepository(db).finish(id, v, comparison);
  ASSERT_TRUE(done && *done) << id;
}

// A workspace database with tokens 1 and 2 (candidates name their token).
std::optional<Database> open_with_tokens(const std::filesystem::path& file) {
  auto db = Database::open(file);
  EXPECT_TRUE(db) << db.error().what();
  if (!db) return std::nullopt;
  for (const char* name : {"one", "two"}) EXPECT_TRUE(TokenRepository(*db).create(name, "agent"));
  return std::move(*db);
}

std::vector<std::string> ids(const AttemptRows& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows.rows) out.push_back(r.id);
  return out;
}

const AttemptRow& row(const AttemptRows& rows, const std::string& id) {
  return *std::find_if(rows.rows.begin(), rows.rows.end(), [&](const AttemptRow& r) { return r.id == id; });
}

TEST(LineageQuery, TheTreeOfACandidateFromItsRootDownNewestFirst) {
  TempDir dir;
  auto db = open_with_tokens(dir / "kwb.db");
  ASSERT_TRUE(db);
  const std::string root = add(*db, std::nullopt, 1, "vector_add", "first try");
  const std::string a = add(*db, root);
  const std::string b = add(*db, a, 2);  // another token's improvement is in the tree too
  const std::string c = add(*db, a);
  const std::string d = add(*db, c);
  const std::string other = add(*db, std::nullopt);
  const std::string dangling = add(*db, std::string("c-00000000000000ff"));  // its parent does not exist
  finish(*db, root, "incorrect", nullptr, "wrong result on n1\nc[0]: got 2, expected 1");
  finish(*db, a, "accepted", 1.5, "correct on 9 workloads", core::ComparisonState::pending);
  ASSERT_TRUE(*CandidateRepository(*db).decide(
      a, {{"status", "accepted"}, {"reason", "correct on 9 workloads"}, {"summary", {{"geomean_vs_incumbent", 1.5}}}},
      {{"promotable", true}, {"reason", "faster"}}));
  nlohmann::json decided = {{"status", "accepted"}, {"reason", "first kernel"},
                            {"summary", {{"geomean_vs_incumbent", nullptr}, {"decision", {{"promotable", false}}}}}};
  ASSERT_TRUE(*CandidateRepository(*db).finish(c, decided));

  for (const std::string& asked : {root, a, b, d}) {
    auto rows = lineage_rows(*db, asked, 100);
    ASSERT_TRUE(rows) << rows.error().what();
    ASSERT_TRUE(*rows) << asked;
    EXPECT_EQ(ids(**rows), (std::vector<std::string>{d, c, b, a, root})) << asked;
    EXPECT_EQ((*rows)->total, 5);
  }
  auto fetched = lineage_rows(*db, d, 100);
  ASSERT_TRUE(fetched && *fetched);
  const AttemptRows& rows = **fetched;
  const AttemptRow& first = row(rows, root);
  EXPECT_EQ(first.note, "first try");
  EXPECT_FALSE(first.parent);
  EXPECT_EQ(first.status, "incorrect");
  EXPECT_EQ(first.reason, "wrong result on n1\nc[0]: got 2, expected 1");
  EXPECT_FALSE(first.geomean_vs_incumbent);
  EXPECT_FALSE(first.promotable);
  const AttemptRow& compared = row(rows, a);
  EXPECT_EQ(compared.parent, root);
  EXPECT_EQ(compared.geomean_vs_incumbent, 1.5);
  EXPECT_EQ(compared.comparison, "done");
  EXPECT_EQ(compared.promotable, true);  // the stored comparison's
  EXPECT_EQ(row(rows, c).promotable, false);  // the verdict's own decision
  EXPECT_EQ(row(rows, c).comparison, "none");
  EXPECT_EQ(row(rows, d).state, "queued");
  EXPECT_FALSE(row(rows, d).status);

  auto capped = lineage_rows(*db, root, 2);
  ASSERT_TRUE(capped && *capped);
  EXPECT_EQ(ids(**capped), (std::vector<std::string>{d, c}));
  EXPECT_EQ((*capped)->total, 5);
  EXPECT_EQ(ids(**lineage_rows(*db, other, 100)), (std::vector<std::string>{other}));
  EXPECT_EQ(ids(**lineage_rows(*db, dangling, 100)), (std::vector<std::string>{dangling}));
  auto unknown = lineage_rows(*db, "c-0123456789abcdef", 100);
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(*unknown);
}

TEST(LineageQuery, AttemptsAreOneTokensCandidatesOfOneOp) {
  TempDir dir;
  auto db = open_with_tokens(dir / "kwb.db");
  ASSERT_TRUE(db);
  const std::string one = add(*db, std::nullopt, 1);
  const std::string two = add(*db, one, 1);
  add(*db, one, 2);                            // another token's
  add(*db, std::nullopt, 1, "softmax");        // another op
  const std::string anonymous = add(*db, std::nullopt, std::nullopt);  // --no-auth: token 0
  const std::string three = add(*db, two, 1);
  auto rows = attempt_rows(*db, 1, "vector_add", 100);
  ASSERT_TRUE(rows) << rows.error().what();
  EXPECT_EQ(ids(*rows), (std::vector<std::string>{three, two, one}));
  EXPECT_EQ(rows->total, 3);
  rows = attempt_rows(*db, 1, "vector_add", 2);
  ASSERT_TRUE(rows);
  EXPECT_EQ(ids(*rows), (std::vector<std::string>{three, two}));
  EXPECT_EQ(rows->total, 3);
  EXPECT_EQ(ids(*attempt_rows(*db, 0, "vector_add", 100)), (std::vector<std::string>{anonymous}));
  EXPECT_TRUE(attempt_rows(*db, 7, "vector_add", 100)->rows.empty());
}

// Neither query scans every candidate: the children come from candidates_parent, a token's
// attempts from candidates_token_op in their order (no sort).
TEST(LineageQuery, TheQueriesSearchTheirIndexes) {
  TempDir dir;
  const auto file = dir / "kwb.db";
  { ASSERT_TRUE(Database::open(file)); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  auto plan_of = [&](const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &st, nullptr), SQLITE_OK)
        << sqlite3_errmsg(raw);
    std::string plan;
    while (st && sqlite3_step(st) == SQLITE_ROW)
      plan += std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 3))) + "\n";
    sqlite3_finalize(st);
    return plan;
  };
  const LineageSql& sql = lineage_sql();
  for (const std::string& s : {sql.lineage, sql.lineage_count}) {
    std::string plan = plan_of(s);
    EXPECT_NE(plan.find("USING INDEX candidates_parent"), std::string::npos) << s << "\n" << plan;
    EXPECT_EQ(plan.find("SCAN k"), std::string::npos) << plan;
  }
  for (const std::string& s : {sql.attempts, sql.attempts_count}) {
    std::string plan = plan_of(s);
    EXPECT_NE(plan.find("INDEX candidates_token_op"), std::string::npos) << s << "\n" << plan;
    EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
  }
  sqlite3_close(raw);
}

}  // namespace
}  // namespace kwb::store
