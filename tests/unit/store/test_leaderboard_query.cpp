// One page of the leaderboard, ranked in SQL (store/leaderboard_query.hpp): order by speed-up
// (ties newest first) or newest first, filters by backend and decision, offsets, the total, and
// the best row of each source; migration 7 fills the speedup column of verdicts stored before it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/candidate_repository.hpp"
#include "store/database.hpp"
#include "store/decision_repository.hpp"
#include "store/leaderboard_query.hpp"
#include "store/migrations.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

using test::TempDir;

std::string add(Database& db, const std::string& source, const std::string& backend, nlohmann::json speedup,
                const std::string& status = "accepted") {
  CandidateRepository repo(db);
  CandidateRecord rec;
  rec.op = "vector_add";
  rec.backend = backend;
  rec.source_sha256 = source;
  rec.source_name = "k.cpp";
  auto r = repo.insert(rec, nullptr);
  EXPECT_TRUE(r) << r.error().what();
  nlohmann::json v = {{"status", status}, {"variant", "f32"},
                      {"summary", {{"geomean_vs_incumbent", speedup}}}};
  auto finished = repo.finish(r->id, v);
  EXPECT_TRUE(finished && *finished) << (finished ? "already finished" : finished.error().what());
  return r->id;
}

std::vector<std::string> ids(const LeaderboardPage& p) {
  std::vector<std::string> out;
  for (const auto& e : p.entries) out.push_back(e.id);
  return out;
}

TEST(LeaderboardQuery, RanksFiltersPagesAndNamesTheLeaderOfEachSource) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  const std::string a(64, 'a'), b(64, 'b');
  std::string slow = add(*db, a, "cpu", 1.1);
  std::string fast = add(*db, b, "cpu", 2.0);
  std::string twin = add(*db, a, "cpu", 1.5);  // same source as slow, ranked above it
  std::string none = add(*db, b, "cpu", nullptr);  // not compared: ranked as 0, last
  std::string gpu = add(*db, b, "cuda", 3.0);
  add(*db, a, "cpu", 9.0, "incorrect");  // never on the board
  std::string nan = add(*db, b, "cuda", "nan");  // a number JSON cannot hold: stored, ranked as 0
  ASSERT_TRUE(DecisionRepository(*db).record({fast, "promoted", "", "abc", std::nullopt, ""}));

  LeaderboardQuery q{"vector_add", "cpu", std::nullopt, false, 0, 20};
  auto page = leaderboard_page(*db, q);
  ASSERT_TRUE(page) << page.error().what();
  EXPECT_EQ(ids(*page), (std::vector<std::string>{fast, twin, slow, none}));
  EXPECT_EQ(page->total, 4);
  EXPECT_EQ(page->distinct_sources, 2);
  EXPECT_EQ(page->entries[0].decision, "promoted");
  EXPECT_FALSE(page->entries[1].decision);
  EXPECT_EQ(page->entries[1].leader, twin);  // the best row of source a is itself
  EXPECT_EQ(page->entries[2].leader, twin);  // slow names it
  EXPECT_EQ(page->entries[3].leader, fast);

  q.offset = 1;
  q.limit = 2;
  page = leaderboard_page(*db, q);
  ASSERT_TRUE(page);
  EXPECT_EQ(ids(*page), (std::vector<std::string>{twin, slow}));
  EXPECT_EQ(page->total, 4);

  q = {"vector_add", "cpu", "pending", false, 0, 20};
  page = leaderboard_page(*db, q);
  ASSERT_TRUE(page);
  EXPECT_EQ(ids(*page), (std::vector<std::string>{twin, slow, none}));
  q.decision = "promoted";
  page = leaderboard_page(*db, q);
  ASSERT_TRUE(page);
  EXPECT_EQ(ids(*page), (std::vector<std::string>{fast}));

  q = {"vector_add", std::nullopt, std::nullopt, true, 0, 20};
  page = leaderboard_page(*db, q);
  ASSERT_TRUE(page);
  EXPECT_EQ(ids(*page), (std::vector<std::string>{nan, gpu, none, twin, fast, slow}));
  q.newest_first = false;
  q.backend = "cuda";
  page = leaderboard_page(*db, q);
  ASSERT_TRUE(page);
  EXPECT_EQ(ids(*page), (std::vector<std::string>{gpu, nan}));
}

TEST(LeaderboardQuery, MigrationSevenFillsTheRankOfOlderVerdicts) {
  TempDir dir;
  const auto file = dir / "kwb.db";
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
    std::string sql;
    for (size_t i = 0; i < 6; ++i) sql += migrations()[i];
    sql += "PRAGMA user_version=6;"
           "INSERT INTO candidates (id, seq, op, backend, source_sha256, source_name, state, status, verdict) VALUES "
           "('c-0000000000000001', 1, 'vector_add', 'cpu', 'x', 'k.cpp', 'done', 'accepted', "
           "'{\"summary\":{\"geomean_vs_incumbent\":1.25}}'),"
           "('c-0000000000000002', 2, 'vector_add', 'cpu', 'y', 'k.cpp', 'done', 'accepted', "
           "'{\"summary\":{\"geomean_vs_incumbent\":1.75}}');";
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    sqlite3_close(raw);
  }
  auto db = Database::open(file);
  ASSERT_TRUE(db) << db.error().what();
  auto page = leaderboard_page(*db, {"vector_add", std::nullopt, std::nullopt, false, 0, 20});
  ASSERT_TRUE(page) << page.error().what();
  EXPECT_EQ(ids(*page), (std::vector<std::string>{"c-0000000000000002", "c-0000000000000001"}));
}

// Ranking never reads the candidates' rows (each carries a ~7 KB verdict): every filter's two
// statements search the covering index, so a page of 10 000 candidates reads index pages only.
TEST(LeaderboardQuery, EveryFilterIsAnsweredFromTheCoveringIndexAlone) {
  TempDir dir;
  const auto file = dir / "kwb.db";
  { ASSERT_TRUE(Database::open(file)); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &raw), SQLITE_OK);
  for (std::optional<std::string> backend : {std::optional<std::string>(), std::optional<std::string>("cpu")})
    for (std::optional<std::string> decision :
         {std::optional<std::string>(), std::optional<std::string>("pending"), std::optional<std::string>("promoted")})
      for (bool newest : {false, true}) {
        LeaderboardSql sql = leaderboard_sql({"vector_add", backend, decision, newest, 0, 20});
        for (const std::string& statement : {sql.count, sql.page, sql.leader}) {
          sqlite3_stmt* st = nullptr;
          ASSERT_EQ(sqlite3_prepare_v2(raw, ("EXPLAIN QUERY PLAN " + statement).c_str(), -1, &st, nullptr), SQLITE_OK)
              << sqlite3_errmsg(raw);
          std::string plan;
          while (sqlite3_step(st) == SQLITE_ROW) plan += std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 3))) + "\n";
          sqlite3_finalize(st);
          EXPECT_NE(plan.find("SEARCH c USING COVERING INDEX candidates_board"), std::string::npos)
              << statement << "\n" << plan;
          // The page and the leaders walk their index in the board's order: no sort of the set.
          if (statement != sql.count) EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << statement << "\n" << plan;
        }
      }
  sqlite3_close(raw);
}

}  // namespace
}  // namespace kwb::store
