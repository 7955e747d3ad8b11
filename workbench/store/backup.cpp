#include "store/backup.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "store/migrations.hpp"
#include "util/random.hpp"

namespace kwb::store {

namespace fs = std::filesystem;

namespace {

std::string utc_stamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

bool is_backup_name(const std::string& n) {
  return n.size() > 7 && n.starts_with("kwb-") && n.ends_with(".db") && n.find(".tmp") == std::string::npos;
}

void fsync_path(const fs::path& p, bool dir) {
  int fd = ::open(p.c_str(), (dir ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

util::Unexpected sqlite_fail(sqlite3* db, const fs::path& where, const std::string& what) {
  int rc = db ? sqlite3_errcode(db) & 0xff : SQLITE_ERROR;
  std::string msg = what + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
  if (rc == SQLITE_FULL) return util::fail(util::ErrorKind::storage_full, where.string(), msg + " (no space left)");
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) return util::fail(util::ErrorKind::busy, where.string(), msg);
  return util::fail(where.string(), msg);
}

}  // namespace

std::vector<fs::path> list_backups(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_backup_name(e.path().filename().string())) out.push_back(e.path());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.stem().string() > b.stem().string(); });
  return out;
}

util::Result<fs::path> backup_database(const fs::path& db_file, const fs::path& dir, int keep) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return util::fail(dir.string(), "cannot create the backup folder: " + ec.message());
  std::string stamp = utc_stamp();
  // Several in one second: -01, -02, ... after the last one of that second, so that names sort
  // (by their stem) in the order written even after the oldest were pruned.
  int next = 0;
  for (const auto& b : list_backups(dir)) {
    std::string stem = b.stem().string(), base = "kwb-" + stamp;
    if (stem == base) next = std::max(next, 1);
    else if (stem.starts_with(base + "-")) next = std::max(next, std::atoi(stem.c_str() + base.size() + 1) + 1);
  }
  fs::path target = dir / (next == 0 ? "kwb-" + stamp + ".db" : fmt::format("kwb-{}-{:02}.db", stamp, next));
  fs::path tmp = dir / (".kwb-" + stamp + "." + util::random_hex(4) + ".tmp");
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    auto e = sqlite_fail(db, db_file, "cannot open for a backup");
    sqlite3_close(db);
    return e;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, "VACUUM INTO ?1", -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, tmp.c_str(), -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
  }
  auto result = rc == SQLITE_DONE ? util::Result<void>() : sqlite_fail(db, target, "backup (VACUUM INTO) failed");
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (!result) {
    fs::remove(tmp, ec);
    return std::unexpected(result.error());
  }
  fsync_path(tmp, false);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return util::fail(target.string(), "cannot rename the backup into place: " + ec.message());
  }
  fsync_path(dir, true);
  auto all = list_backups(dir);
  for (size_t i = size_t(std::max(1, keep)); i < all.size(); ++i) fs::remove(all[i], ec);
  return target;
}

util::Result<int> check_backup(const fs::path& backup) {
  std::error_code ec;
  if (!fs::is_regular_file(backup, ec)) return util::fail(util::ErrorKind::not_found, backup.string(), "no such backup file");
  if (fs::file_size(backup, ec) == 0) return util::fail(backup.string(), "is empty (0 bytes): not a backup");
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(backup.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    auto e = sqlite_fail(db, backup, "cannot open");
    sqlite3_close(db);
    return e;
  }
  auto scalar = [&](const char* sql, std::string* text) -> int {
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (text) {
        auto p = sqlite3_column_text(st, 0);
        *text = p ? reinterpret_cast<const char*>(p) : "";
      }
      rc = sqlite3_column_int(st, 0);
    } else {
      rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
  };
  std::string integrity;
  scalar("PRAGMA integrity_check;", &integrity);
  int version = scalar("PRAGMA user_version;", nullptr);
  std::string tables;
  scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('candidates', 'tokens');", &tables);
  sqlite3_close(db);
  if (integrity != "ok") return util::fail(backup.string(), "integrity check failed: " + (integrity.empty() ? "not a SQLite database" : integrity));
  if (tables != "2") return util::fail(backup.string(), "not a workbench database (no candidates and tokens tables)");
  if (version > int(migrations().size()))
    return util::fail(backup.string(), "schema version " + std::to_string(version) + " is newer than this kwb (" +
                                           std::to_string(migrations().size()) + "): restore it with a newer kwb");
  return version;
}

util::Result<void> restore_database(const fs::path& backup, const fs::path& db_file, fs::path* moved_aside) {
  if (moved_aside) moved_aside->clear();
  if (auto ok = check_backup(backup); !ok) return std::unexpected(ok.error());
  std::error_code ec;
  fs::path tmp = db_file;
  tmp += ".restore." + util::random_hex(4) + ".tmp";
  fs::copy_file(backup, tmp, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return util::fail(tmp.string(), "cannot copy the backup: " + ec.message());
  }
  fsync_path(tmp, false);
  std::string aside = db_file.string() + ".before-restore-" + utc_stamp();
  if (fs::exists(db_file, ec) && fs::file_size(db_file, ec) > 0) {
    fs::rename(db_file, aside, ec);
    if (ec) {
      fs::remove(tmp, ec);
      return util::fail(db_file.string(), "cannot move the current database aside: " + ec.message());
    }
    if (moved_aside) *moved_aside = aside;
  }
  for (const char* suffix : {"-wal", "-shm"}) {
    fs::path side = db_file.string() + suffix;
    if (!fs::exists(side, ec)) continue;
    if (moved_aside && !moved_aside->empty()) fs::rename(side, aside + suffix, ec);
    else fs::remove(side, ec);
  }
  fs::rename(tmp, db_file, ec);
  if (ec) return util::fail(db_file.string(), "cannot move the restored database into place: " + ec.message());
  fsync_path(db_file.parent_path(), true);
  return {};
}

}  // namespace kwb::store
