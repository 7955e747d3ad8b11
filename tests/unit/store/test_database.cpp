#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <latch>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "store/database.hpp"
#include "store/device_repository.hpp"
#include "store/migrations.hpp"
#include "temp_dir.hpp"

namespace kwb::store {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// First column of the first row of `sql`, as text ("" when no row).
std::string query_text(const Database& db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    auto p = sqlite3_column_text(st, 0);
    if (p) out = reinterpret_cast<const char*>(p);
  }
  sqlite3_finalize(st);
  return out;
}

TEST(Database, OpenCreatesTheFileAndParents) {
  TempDir dir;
  const fs::path file = dir / "ws/sub/kwb.db";
  auto db = Database::open(file);
  ASSERT_TRUE(db.has_value()) << db.error().what();
  EXPECT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(db->file(), file);
  EXPECT_NE(db->handle(), nullptr);
}

TEST(Database, UsesWalJournalAndForeignKeys) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db.has_value()) << db.error().what();
  EXPECT_EQ(query_text(*db, "PRAGMA journal_mode;"), "wal");
  EXPECT_EQ(query_text(*db, "PRAGMA foreign_keys;"), "1");
}

TEST(Database, SchemaVersionIsTheNumberOfMigrations) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db.has_value()) << db.error().what();
  ASSERT_FALSE(migrations().empty());
  EXPECT_EQ(db->schema_version(), int(migrations().size()));
  EXPECT_EQ(query_text(*db, "PRAGMA user_version;"), std::to_string(migrations().size()));
  EXPECT_EQ(query_text(*db, "SELECT name FROM sqlite_master WHERE type='table' AND name='devices';"), "devices");
}

TEST(Database, ReopeningKeepsDataAndDoesNotRerunMigrations) {
  TempDir dir;
  const fs::path file = dir / "kwb.db";
  {
    auto db = Database::open(file);
    ASSERT_TRUE(db.has_value()) << db.error().what();
    DeviceRepository repo(*db);
    DeviceRecord r;
    r.id = "cpu:test:1";
    r.kind = "cpu";
    r.name = "Test CPU";
    r.copy_bytes_per_s = 1e10;
    ASSERT_TRUE(repo.put(r).has_value());
  }
  for (int round = 0; round < 2; ++round) {
    auto db = Database::open(file);
    // Re-running the first migration would fail on CREATE TABLE devices (it exists).
    ASSERT_TRUE(db.has_value()) << db.error().what();
    EXPECT_EQ(db->schema_version(), int(migrations().size()));
    DeviceRepository repo(*db);
    auto found = repo.find("cpu:test:1");
    ASSERT_TRUE(found.has_value()) << found.error().what();
    ASSERT_TRUE(found->has_value());
    EXPECT_EQ((*found)->name, "Test CPU");
  }
}

TEST(Database, NewerSchemaIsLeftAlone) {
  TempDir dir;
  const fs::path file = dir / "kwb.db";
  {
    auto db = Database::open(file);
    ASSERT_TRUE(db.has_value());
    ASSERT_TRUE(db->exec("PRAGMA user_version=" + std::to_string(migrations().size() + 5) + ";").has_value());
  }
  auto db = Database::open(file);
  ASSERT_TRUE(db.has_value()) << db.error().what();
  EXPECT_EQ(db->schema_version(), int(migrations().size() + 5));
}

TEST(Database, ConcurrentOpensOfANewFileBothSucceed) {
  // Two connections (the CLI and the daemon, say) opening a fresh workspace at the same moment
  // race through WAL setup and migration; both must succeed and leave the schema migrated once.
  // The race window is small, so it is tried on many fresh files (stopping at the first failure).
  const int rounds = 200, threads = 2;
  for (int round = 0; round < rounds; ++round) {
    TempDir dir;
    const fs::path file = dir / "kwb.db";
    std::vector<std::optional<std::string>> errors(threads);
    std::vector<int> versions(threads, -1);
    std::latch start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        auto db = Database::open(file);
        if (!db) {
          errors[t] = db.error().what();
          return;
        }
        versions[t] = db->schema_version();
      });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
      EXPECT_FALSE(errors[t].has_value()) << "round " << round << " thread " << t << ": " << *errors[t];
      EXPECT_EQ(versions[t], int(migrations().size())) << "round " << round << " thread " << t;
    }
    if (HasFailure()) return;
  }
}

TEST(Database, OpenUnderARegularFileFailsNamingThePath) {
  TempDir dir;
  std::ofstream(dir / "plain") << "not a directory";
  const fs::path file = dir / "plain/kwb.db";
  auto db = Database::open(file);
  ASSERT_FALSE(db.has_value());
  EXPECT_EQ(db.error().where, file.string());
  EXPECT_NE(db.error().what().find(file.string()), std::string::npos) << db.error().what();
}

TEST(Database, OpenOfANonDatabaseFileFails) {
  TempDir dir;
  const fs::path file = dir / "garbage.db";
  std::ofstream(file) << std::string(4096, 'g');
  auto db = Database::open(file);
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().what().find(file.string()), std::string::npos) << db.error().what();
}

TEST(Database, ExecErrorsNameTheFile) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db.has_value());
  auto r = db->exec("SELECT * FROM no_such_table;");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, (dir / "kwb.db").string());
  EXPECT_NE(r.error().message.find("no_such_table"), std::string::npos) << r.error().message;
}

TEST(Database, MoveTransfersTheConnection) {
  TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db.has_value());
  sqlite3* handle = db->handle();
  Database moved(std::move(*db));
  EXPECT_EQ(moved.handle(), handle);
  EXPECT_EQ(db->handle(), nullptr);
  EXPECT_EQ(moved.schema_version(), int(migrations().size()));
  auto other = Database::open(dir / "other.db");
  ASSERT_TRUE(other.has_value());
  moved = std::move(*other);
  EXPECT_EQ(moved.file(), dir / "other.db");
  EXPECT_EQ(moved.schema_version(), int(migrations().size()));
}

}  // namespace
}  // namespace kwb::store
