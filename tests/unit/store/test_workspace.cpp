// Workspace start-up checks: the exclusive lock, a lost database, orphaned job folders.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "store/backup.hpp"
#include "store/database.hpp"
#include "store/workspace.hpp"
#include "store/workspace_lock.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace kwb::store {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& p, const std::string& text = "x") {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(WorkspaceLock, ASecondHolderIsRefusedWithTheFirstOnesDescription) {
  test::TempDir ws;
  const std::string me = std::to_string(::getpid());  // a live holder: refused at once
  auto first = WorkspaceLock::acquire(ws.path(), "kwb serve (pid " + me + ", starting)");
  ASSERT_TRUE(first) << first.error().what();
  first->describe("kwb serve (pid " + me + ", port 8470)");
  auto second = WorkspaceLock::acquire(ws.path(), "kwb serve (pid 99)");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, util::ErrorKind::busy);
  EXPECT_NE(second.error().what().find("in use by kwb serve (pid " + me + ", port 8470)"), std::string::npos)
      << second.error().what();
  first = util::fail("", "released");  // drops the lock
  auto third = WorkspaceLock::acquire(ws.path(), "kwb serve (pid 100)");
  EXPECT_TRUE(third) << third.error().what();
}

// A daemon killed with a sandbox half spawned: the forked child still holds the lock's open file
// for a moment after the daemon is gone. A restart waits for it instead of refusing.
TEST(WorkspaceLock, AHolderThatDiedLeavesTheLockToARestartOnceItsChildLetsGo) {
  test::TempDir ws;
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(go), 0);
  pid_t dead = ::fork();  // a pid that no longer exists: the holder the description names
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  pid_t child = ::fork();
  if (child == 0) {  // holds the lock in the dead daemon's name until told to let go
    auto lock = WorkspaceLock::acquire(ws.path(), "kwb serve (pid " + std::to_string(dead) + ", port 1)");
    char c = lock ? '1' : '0';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(go[0], &c, 1);
    ::_exit(0);  // the lock goes with it
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, '1');
  // Let go while acquire waits (the test holds either way; the delay makes the waiting the case
  // that runs: before the fix, a lock held for a dead pid was refused at once).
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    (void)!::write(go[1], "x", 1);
  });
  auto lock = WorkspaceLock::acquire(ws.path(), "kwb serve (pid 2, restarted)");
  release.join();
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(lock) << lock.error().what();
  for (int fd : {ready[0], ready[1], go[0], go[1]}) ::close(fd);
}

TEST(WorkspaceLock, TheLockGoesWithAKilledHolder) {
  test::TempDir ws;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto lock = WorkspaceLock::acquire(ws.path(), "child");
    char c = lock ? '1' : '0';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, '1');
  EXPECT_FALSE(WorkspaceLock::acquire(ws.path(), "parent"));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(WorkspaceLock::acquire(ws.path(), "parent"));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(Workspace, ANewWorkspaceNeedsNoDatabase) {
  test::TempDir ws;
  EXPECT_TRUE(check_database_present(ws.path()));
  touch(ws / "jobs/job-1/x");  // runtime leftovers are not data
  touch(ws / "serve.log");
  EXPECT_TRUE(check_database_present(ws.path()));
}

TEST(Workspace, AnEmptyDatabaseBesideDataIsRefusedWithWhatWasFoundAndHowToRecover) {
  test::TempDir ws;
  touch(ws / "objects/ab/cdef");
  touch(ws / "admin.token");
  fs::create_directories(ws / "library/.git");
  touch(ws / "kwb.db", "");
  auto r = check_database_present(ws.path());
  ASSERT_FALSE(r);
  const std::string m = r.error().what();
  for (const char* want : {"kwb.db", "empty (0 bytes)", "objects/ (1 stored sources)", "library/", "admin.token",
                           "Refusing to start", "move"})
    EXPECT_NE(m.find(want), std::string::npos) << want << " missing from: " << m;
  // With a backup, the message names `kwb restore`.
  {
    auto db = Database::open(ws / "real.db");
    ASSERT_TRUE(db);
  }
  ASSERT_TRUE(backup_database(ws / "real.db", ws / "backups", 3));
  r = check_database_present(ws.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("kwb restore"), std::string::npos) << r.error().what();
  // A missing database is refused the same way.
  fs::remove(ws / "kwb.db");
  r = check_database_present(ws.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("is missing"), std::string::npos) << r.error().what();
}

TEST(Workspace, OrphanedJobFoldersGoLiveOnesStay) {
  test::TempDir ws;
  auto jobs = ws / "jobs";
  auto mine = util::make_unique_dir(jobs, "job-");  // claimed by this (live) process
  ASSERT_TRUE(mine);
  touch(*mine / "candidate.so");
  // One made by a process that was then killed.
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto dir = util::make_unique_dir(jobs, "job-");
    std::string name = dir ? dir->filename().string() : "";
    (void)!::write(ready[1], name.data(), name.size());
    ::close(ready[1]);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char buf[64] = {};
  ssize_t n = ::read(ready[0], buf, sizeof buf - 1);
  ::close(ready[0]);
  ASSERT_GT(n, 0);
  fs::path theirs = jobs / std::string(buf, size_t(n));
  EXPECT_TRUE(util::dir_in_use(theirs));
  EXPECT_EQ(remove_orphan_job_dirs(jobs), 0);  // both owners alive
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(util::dir_in_use(theirs));
  fs::create_directories(jobs / "job-from-an-older-kwb");  // never claimed
  EXPECT_EQ(remove_orphan_job_dirs(jobs), 2);
  EXPECT_FALSE(fs::exists(theirs));
  EXPECT_FALSE(fs::exists(jobs / "job-from-an-older-kwb"));
  EXPECT_TRUE(fs::exists(*mine / "candidate.so"));
}

}  // namespace
}  // namespace kwb::store
