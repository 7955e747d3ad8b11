// Online backups into workspace/backups and their restore.
#include <gtest/gtest.h>

#include <fstream>

#include "store/backup.hpp"
#include "store/candidate_repository.hpp"
#include "store/database.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

namespace fs = std::filesystem;

CandidateRecord candidate(const std::string& note) {
  CandidateRecord r;
  r.op = "vector_add";
  r.backend = "cpu";
  r.source_sha256 = std::string(64, 'a');
  r.source_name = "candidate.cpp";
  r.note = note;
  return r;
}

TEST(Backup, AnOnlineBackupHoldsTheCommittedRowsAndTheNumberKeptIsBounded) {
  test::TempDir ws;
  auto db = Database::open(ws / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  CandidateRepository repo(*db);
  auto c = repo.insert(candidate("before the backup"), nullptr);
  ASSERT_TRUE(c);
  fs::path newest;
  for (int i = 0; i < 5; ++i) {
    auto b = backup_database(ws / "kwb.db", ws / "backups", 3);
    ASSERT_TRUE(b) << b.error().what();
    newest = *b;
  }
  auto all = list_backups(ws / "backups");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all.front(), newest);
  auto version = check_backup(newest);
  ASSERT_TRUE(version) << version.error().what();
  EXPECT_GT(*version, 0);
  auto copy = Database::open(newest);
  ASSERT_TRUE(copy);
  auto found = CandidateRepository(*copy).find(c->id);
  ASSERT_TRUE(found && found->has_value());
  EXPECT_EQ((*found)->note, "before the backup");
}

TEST(Backup, RestoreReplacesTheDatabaseAndKeepsTheReplacedOneAside) {
  test::TempDir ws;
  std::string id;
  {
    auto db = Database::open(ws / "kwb.db");
    ASSERT_TRUE(db);
    auto c = CandidateRepository(*db).insert(candidate("kept"), nullptr);
    ASSERT_TRUE(c);
    id = c->id;
  }
  auto b = backup_database(ws / "kwb.db", ws / "backups", 7);
  ASSERT_TRUE(b) << b.error().what();
  fs::resize_file(ws / "kwb.db", 0);  // the database lost
  fs::path aside;
  ASSERT_TRUE(restore_database(*b, ws / "kwb.db", &aside));
  EXPECT_TRUE(aside.empty()) << "an empty database is not kept: " << aside;
  auto db = Database::open(ws / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  auto found = CandidateRepository(*db).find(id);
  ASSERT_TRUE(found && found->has_value());
  // Restoring over a non-empty database moves that one aside.
  auto second = CandidateRepository(*db).insert(candidate("after"), nullptr);
  ASSERT_TRUE(second);
  db = util::fail("", "closed");
  ASSERT_TRUE(restore_database(*b, ws / "kwb.db", &aside));
  ASSERT_FALSE(aside.empty());
  EXPECT_TRUE(fs::exists(aside));
  auto moved = Database::open(aside);
  ASSERT_TRUE(moved);
  auto after = CandidateRepository(*moved).find(second->id);
  ASSERT_TRUE(after && after->has_value()) << "the replaced database lost its newest row";
}

TEST(Backup, NotABackupIsRefused) {
  test::TempDir ws;
  std::ofstream(ws / "empty.db").close();
  std::ofstream(ws / "junk.db") << "this is not sqlite";
  for (const char* name : {"empty.db", "junk.db", "missing.db"}) {
    auto r = check_backup(ws / name);
    EXPECT_FALSE(r) << name;
    fs::path aside;
    EXPECT_FALSE(restore_database(ws / name, ws / "kwb.db", &aside)) << name;
    EXPECT_FALSE(fs::exists(ws / "kwb.db")) << name;
  }
}

}  // namespace
}  // namespace kwb::store
