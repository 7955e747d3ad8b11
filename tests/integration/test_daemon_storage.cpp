// The daemon under storage faults and workspace mistakes (issue 15: defects 1, 6, 7, 8, 11):
// a full disk (a small tmpfs mounted here), a database locked by another process, a second
// daemon on the workspace, a lost (0-byte) database and `kwb restore`, orphaned job folders.
#include <httplib.h>
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "../unit/common/tmpfs_mount.hpp"
#include "daemon_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace kwb::test;
using Clock = std::chrono::steady_clock;

std::string source(const std::string& tag) {
  return "#include <cstdint>\n// " + tag + "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
         "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
}

std::string body(const std::string& tag) { return nlohmann::json{{"op", "vector_add"}, {"source", source(tag)}}.dump(); }

nlohmann::json json_of(const httplib::Result& r) { return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json(); }

// The candidate once it is done: long-polls of 60 s, up to 6 of them (the shipped n16M bench
// workload's decide stage can take minutes on a loaded 2-core machine under ctest -j2).
nlohmann::json wait_done(httplib::Client& c, const std::string& id) {
  nlohmann::json got = nlohmann::json::object();
  for (int round = 0; round < 6 && !(got.is_object() && got.value("state", "") == "done"); ++round)
    got = json_of(c.Get("/v1/candidates/" + id + "?wait=60"));
  return got;
}

httplib::Client client(const DaemonProcess& d) {
  httplib::Client c("127.0.0.1", d.port());
  c.set_read_timeout(120, 0);
  return c;
}

// Polls `pred` until it holds (bounded).
bool eventually(const std::function<bool()>& pred, std::chrono::seconds limit = std::chrono::seconds(30)) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

const std::vector<std::string> k_args = {"--no-auth", "--time-budget-ms", "20", "--backup-interval-s", "0"};

class DaemonStorage : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("KWB_LIBCLANG", "off", 1); }  // no PCH build racing the fill
  void TearDown() override { ::unsetenv("KWB_LIBCLANG"); }
};

TEST_F(DaemonStorage, AFullDiskAnswers507NeverAnIdThatIsNotStoredAndHealthSaysSo) {
  TmpfsMount disk(128 << 20);
  TMPFS_OR_SKIP(disk);
  DaemonProcess d;
  auto args = k_args;
  args.insert(args.end(), {"--reserve-mb", "2"});
  std::string error;
  ASSERT_TRUE(d.start(args, disk / "ws", &error)) << error;
  auto c = client(d);
  EXPECT_EQ(json_of(c.Get("/v1/health"))["status"], "ok");
  ASSERT_GT(TmpfsMount::fill(disk / "ballast"), 0u);
  int refused = 0;
  for (int i = 0; i < 8; ++i) {
    auto r = c.Post("/v1/candidates", body("full " + std::to_string(i)), "application/json");
    ASSERT_TRUE(r);
    if (r->status == 202) {  // then it must be stored
      std::string id = json_of(r)["id"];
      auto got = c.Get("/v1/candidates/" + id);
      ASSERT_TRUE(got);
      EXPECT_EQ(got->status, 200) << "202 with id " << id << " on a full disk, then " << got->status;
      continue;
    }
    EXPECT_EQ(r->status, 507) << r->body;
    EXPECT_EQ(json_of(r)["error"]["type"], "insufficient_storage") << r->body;
    EXPECT_NE(r->body.find("no space"), std::string::npos) << r->body;
    EXPECT_FALSE(r->get_header_value("Retry-After").empty());
    ++refused;
  }
  EXPECT_GT(refused, 0) << "no submission was refused on a full disk";
  auto health = json_of(c.Get("/v1/health"));
  EXPECT_EQ(health["status"], "degraded") << health.dump();
  EXPECT_FALSE(health["storage"]["problems"].empty()) << health.dump();
  // Space again: healthy, and submissions are stored and evaluated.
  fs::remove(disk / "ballast");
  EXPECT_TRUE(eventually([&] { return json_of(c.Get("/v1/health"))["status"] == "ok"; }))
      << json_of(c.Get("/v1/health")).dump();
  auto r = c.Post("/v1/candidates", body("after"), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  auto got = wait_done(c, json_of(r)["id"].get<std::string>());
  EXPECT_EQ(got["state"], "done") << got.dump();
  EXPECT_EQ(got["verdict"]["status"], "accepted") << got.dump();
}

TEST_F(DaemonStorage, CachesAreEvictedBeforeASubmissionIsRefused) {
  TmpfsMount disk(128 << 20);
  TMPFS_OR_SKIP(disk);
  DaemonProcess d;
  auto args = k_args;
  args.insert(args.end(), {"--reserve-mb", "1"});
  std::string error;
  ASSERT_TRUE(d.start(args, disk / "ws", &error)) << error;
  fs::path pch = disk / "ws/cache/analysis/clang19-test/cpu.pch";
  fs::create_directories(pch.parent_path());
  std::ofstream(pch, std::ios::binary) << std::string(16 << 20, 'p');
  ASSERT_GT(TmpfsMount::fill(disk / "ballast"), 0u);
  auto c = client(d);
  auto r = c.Post("/v1/candidates", body("evict"), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << "the cache was not evicted for the submission: " << r->body;
  EXPECT_FALSE(fs::exists(pch));
  if (r->status == 202) {
    auto got = c.Get("/v1/candidates/" + json_of(r)["id"].get<std::string>());
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 200);
  }
}

TEST_F(DaemonStorage, ALockedDatabaseAnswers503WithRetryAfterAndReadsDoNotWait) {
  DaemonProcess d;
  std::string error;
  ASSERT_TRUE(d.start(k_args, {}, &error)) << error;
  auto c = client(d);
  auto first = c.Post("/v1/candidates", body("before the lock"), "application/json");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 202);
  std::string id = json_of(first)["id"];
  ASSERT_EQ(wait_done(c, id)["state"], "done");
  // Another process's connection takes the write lock and keeps it.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((d.workspace() / "kwb.db").c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE; UPDATE candidates SET note = note;", nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(other);
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    auto r = c.Post("/v1/candidates", body("locked " + std::to_string(i)), "application/json");
    auto took = Clock::now() - t0;
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 503) << r->body;
    EXPECT_EQ(json_of(r)["error"]["type"], "busy") << r->body;
    EXPECT_FALSE(r->get_header_value("Retry-After").empty());
    EXPECT_LT(took, std::chrono::seconds(4)) << "POST " << i << " waited too long";
    t0 = Clock::now();
    auto g = c.Get("/v1/candidates/" + id);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->status, 200) << g->body;
    EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(500)) << "a read queued behind the writer";
  }
  sqlite3_exec(other, "ROLLBACK;", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  auto r = c.Post("/v1/candidates", body("after the lock"), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body;
}

TEST_F(DaemonStorage, ASecondDaemonOnTheWorkspaceExitsNamingTheFirst) {
  DaemonProcess first;
  std::string error;
  ASSERT_TRUE(first.start(k_args, {}, &error)) << error;
  DaemonProcess second;
  EXPECT_FALSE(second.start(k_args, first.workspace(), &error, std::chrono::seconds(60)));
  for (std::string want : {std::string("in use by kwb serve"), "pid " + std::to_string(first.pid()),
                           "port " + std::to_string(first.port())})
    EXPECT_NE(error.find(want), std::string::npos) << want << " missing from:\n" << error;
  EXPECT_EQ(json_of(client(first).Get("/v1/health"))["status"], "ok");
  // Nor is a restore run under a live daemon.
  auto restore = run_command((bin_dir() / "kwb").string() + " restore --workspace " +
                             shell_quote(first.workspace().string()) + " 2>&1");
  EXPECT_EQ(restore.exit_code, 2) << restore.out;
  EXPECT_NE(restore.out.find("in use by kwb serve (pid " + std::to_string(first.pid())), std::string::npos) << restore.out;
}

TEST_F(DaemonStorage, AnEmptyDatabaseIsRefusedAndKwbRestoreBringsTheBackupBack) {
  DaemonProcess d;
  std::string error;
  auto args = k_args;
  args[args.size() - 1] = "1";  // a backup at each start (the newest is older than 1 s)
  ASSERT_TRUE(d.start(args, {}, &error)) << error;
  auto ws = d.workspace();
  auto c = client(d);
  auto r = c.Post("/v1/candidates", body("to restore"), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202);
  std::string id = json_of(r)["id"];
  ASSERT_EQ(wait_done(c, id)["state"], "done");
  // The next backup (within a second or so) holds the candidate.
  auto newest = [&] {
    std::string n;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(ws / "backups", ec))
      if (e.path().extension() == ".db") n = std::max(n, e.path().filename().string());
    return n;
  };
  std::string before = newest();
  ASSERT_TRUE(eventually([&] { return newest() > before; })) << d.log();
  d.stop();
  // A job folder left by a killed process, and the database lost.
  fs::create_directories(ws / "jobs/job-0123456789abcdef/work");
  fs::resize_file(ws / "kwb.db", 0);
  for (const char* side : {"kwb.db-wal", "kwb.db-shm"}) fs::remove(ws / side);
  EXPECT_FALSE(d.start(args, ws, &error, std::chrono::seconds(60)));
  for (const char* want : {"kwb.db", "is empty (0 bytes)", "objects/", "kwb restore"})
    EXPECT_NE(error.find(want), std::string::npos) << want << " missing from:\n" << error;
  auto restore = run_command((bin_dir() / "kwb").string() + " restore --workspace " + shell_quote(ws.string()) + " 2>&1");
  ASSERT_EQ(restore.exit_code, 0) << restore.out;
  ASSERT_TRUE(d.start(args, ws, &error)) << error;
  auto back = client(d);
  auto got = json_of(back.Get("/v1/candidates/" + id));
  EXPECT_EQ(got["state"], "done") << got.dump();
  EXPECT_EQ(got["verdict"]["status"], "accepted") << got.dump();
  EXPECT_FALSE(fs::exists(ws / "jobs/job-0123456789abcdef")) << "the orphaned job folder was not removed";
}

}  // namespace
