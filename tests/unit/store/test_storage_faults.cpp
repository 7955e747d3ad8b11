// The store under storage faults: a full disk (SQLITE_FULL at commit, after an INSERT's
// RETURNING row) and a database locked by another connection.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "store/candidate_repository.hpp"
#include "store/database.hpp"
#include "store/event_repository.hpp"
#include "store/object_store.hpp"
#include "temp_dir.hpp"
#include "tmpfs_mount.hpp"

namespace kwb::store {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

CandidateRecord candidate(size_t note_bytes = 0) {
  CandidateRecord r;
  r.op = "vector_add";
  r.backend = "cpu";
  r.source_sha256 = std::string(64, 'a');
  r.source_name = "candidate.cpp";
  r.note = std::string(note_bytes, 'n');
  return r;
}

TEST(StorageFull, InsertOnAFullDiskFailsAsStorageFullAndStoresNothing) {
  test::TmpfsMount disk(4 << 20);
  TMPFS_OR_SKIP(disk);
  auto db = Database::open(disk / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  CandidateRepository repo(*db);
  ASSERT_TRUE(repo.insert(candidate(), nullptr));
  ASSERT_GT(test::TmpfsMount::fill(disk / "ballast"), 0u);
  // A row larger than anything the WAL held so far: its commit needs new space.
  auto r = repo.insert(candidate(1 << 20), nullptr);
  if (r) {
    auto back = repo.find(r->id);
    ASSERT_TRUE(back);
    FAIL() << "insert answered id " << r->id << " on a full disk; stored: " << (back->has_value() ? "yes" : "no");
  }
  EXPECT_EQ(r.error().kind, util::ErrorKind::storage_full) << r.error().what();
  EXPECT_NE(r.error().what().find("no space left"), std::string::npos) << r.error().what();
  ASSERT_TRUE(db->storage_problem().has_value());
  auto rows = repo.list({});
  ASSERT_TRUE(rows) << rows.error().what();
  EXPECT_EQ(rows->size(), 1u);
  // Space again: the next write succeeds and the problem is over.
  fs::remove(disk / "ballast");
  auto again = repo.insert(candidate(1 << 20), nullptr);
  ASSERT_TRUE(again) << again.error().what();
  auto found = repo.find(again->id);
  ASSERT_TRUE(found && found->has_value());
  EXPECT_FALSE(db->storage_problem().has_value());
}

TEST(StorageFull, ARelieverThatFreesSpaceLetsTheInsertThrough) {
  test::TmpfsMount disk(4 << 20);
  TMPFS_OR_SKIP(disk);
  auto db = Database::open(disk / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  test::TmpfsMount::fill(disk / "cache-entry");
  int calls = 0;
  db->set_space_reliever([&] {
    ++calls;
    return fs::remove(disk / "cache-entry");
  });
  CandidateRepository repo(*db);
  auto r = repo.insert(candidate(1 << 20), nullptr);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(calls, 1);
  auto found = repo.find(r->id);
  ASSERT_TRUE(found && found->has_value());
}

TEST(StorageFull, ObjectsAreNotLeftTruncatedOnAFullDisk) {
  test::TmpfsMount disk(1 << 20);
  TMPFS_OR_SKIP(disk);
  ObjectStore objects(disk / "objects");
  test::TmpfsMount::fill(disk / "ballast");
  auto sha = objects.put(std::string(256 << 10, 's'));
  ASSERT_FALSE(sha) << "put succeeded on a full disk";
  EXPECT_EQ(sha.error().kind, util::ErrorKind::storage_full) << sha.error().what();
  size_t files = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(disk / "objects", ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    files += it->is_regular_file();
  EXPECT_EQ(files, 0u) << "a partial object was left behind";
}

TEST(StorageFull, EventAppendReportsTheCommitFailure) {
  test::TmpfsMount disk(4 << 20);
  TMPFS_OR_SKIP(disk);
  auto db = Database::open(disk / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  CandidateRepository repo(*db);
  auto c = repo.insert(candidate(), nullptr);
  ASSERT_TRUE(c);
  test::TmpfsMount::fill(disk / "ballast");
  EventRepository events(*db);
  auto e = events.append(c->id, "state", {{"detail", std::string(1 << 20, 'd')}});
  ASSERT_FALSE(e) << "event " << e->id << " reported stored on a full disk";
  EXPECT_EQ(e.error().kind, util::ErrorKind::storage_full);
  auto after = events.after(c->id, 0);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->empty());
}

// Another connection (as another process would) holds the write lock.
struct LockHolder {
  sqlite3* db = nullptr;
  explicit LockHolder(const fs::path& file) {
    sqlite3_open(file.c_str(), &db);
    sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO devices (id, kind, name, copy_bytes_per_s) VALUES ('x', 'cpu', 'x', 1);",
                 nullptr, nullptr, nullptr);
  }
  ~LockHolder() {
    sqlite3_exec(db, "ROLLBACK;", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
};

TEST(Busy, AWriteFailsAsBusyWithinTheBoundedWaitAndLaterOnesFailFast) {
  test::TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  CandidateRepository repo(*db);
  auto first = repo.insert(candidate(), nullptr);
  ASSERT_TRUE(first);
  LockHolder holder(dir / "kwb.db");
  auto t0 = Clock::now();
  auto r = repo.insert(candidate(), nullptr);
  auto waited = Clock::now() - t0;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, util::ErrorKind::busy) << r.error().what();
  EXPECT_LT(waited, Database::k_busy_wait + std::chrono::milliseconds(1500));
  EXPECT_GE(waited, Database::k_busy_wait - std::chrono::milliseconds(200));
  // While the lock is still held, the next writer does not wait the full time again.
  t0 = Clock::now();
  auto again = repo.set_state(first->id, core::CandidateState::queued, core::CandidateState::analyzing);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, util::ErrorKind::busy);
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(500));
  // Readers do not queue behind the writer: WAL snapshot of the last commit.
  t0 = Clock::now();
  auto found = repo.find(first->id);
  ASSERT_TRUE(found) << found.error().what();
  EXPECT_TRUE(found->has_value());
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(200));
}

TEST(Busy, ReadsAnswerWhileAnotherThreadWaitsForTheLock) {
  test::TempDir dir;
  auto db = Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  CandidateRepository repo(*db);
  auto first = repo.insert(candidate(), nullptr);
  ASSERT_TRUE(first);
  LockHolder holder(dir / "kwb.db");
  std::thread writer([&] { (void)repo.insert(candidate(), nullptr); });  // holds the writer mutex ~2 s
  std::this_thread::yield();
  auto t0 = Clock::now();
  for (int i = 0; i < 20; ++i) {
    auto rows = repo.list({});
    ASSERT_TRUE(rows) << rows.error().what();
    EXPECT_EQ(rows->size(), 1u);
  }
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(500));
  writer.join();
}

}  // namespace
}  // namespace kwb::store
