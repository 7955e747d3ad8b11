// kwb restore [BACKUP] [--list]: put a backup of workspace/backups/ back as the workspace's
// database, with no daemon on the workspace (it takes the workspace lock itself).
#include <unistd.h>

#include <cstdio>

#include "app/commands.hpp"
#include "store/backup.hpp"
#include "store/workspace_lock.hpp"

namespace kwb::app {

namespace {

struct RestoreArgs {
  std::string backup;  // path, or a file name in <workspace>/backups; empty: the newest
  bool list = false;
};

int run_restore(const RestoreArgs& a, const util::Settings& settings) {
  std::filesystem::path workspace = settings.get("workspace");
  auto dir = workspace / "backups";
  auto all = store::list_backups(dir);
  if (a.list) {
    if (all.empty()) std::printf("no backups in %s\n", dir.c_str());
    for (const auto& b : all) {
      std::error_code ec;
      std::printf("%s  %llu bytes\n", b.filename().c_str(), (unsigned long long)std::filesystem::file_size(b, ec));
    }
    return 0;
  }
  // First: a running daemon must not have its database replaced under it.
  auto lock = store::WorkspaceLock::acquire(workspace, "kwb restore (pid " + std::to_string(::getpid()) + ")");
  if (!lock) return std::fprintf(stderr, "kwb restore: %s\n", lock.error().what().c_str()), 2;
  std::filesystem::path backup;
  if (!a.backup.empty()) {
    backup = a.backup;
    std::error_code ec;
    if (backup.filename() == backup && !std::filesystem::exists(backup, ec)) backup = dir / backup;
  } else if (all.empty()) {
    return std::fprintf(stderr, "kwb restore: no backups in %s (the daemon writes one a day; name a file to restore)\n",
                        dir.c_str()),
           2;
  } else {
    backup = all.front();
  }
  std::filesystem::path aside;
  auto db_file = workspace / "kwb.db";
  if (auto r = store::restore_database(backup, db_file, &aside); !r)
    return std::fprintf(stderr, "kwb restore: %s\n", r.error().what().c_str()), 2;
  std::printf("kwb restore: %s restored as %s\n", backup.c_str(), db_file.c_str());
  if (!aside.empty()) std::printf("kwb restore: the database it replaced was moved to %s\n", aside.c_str());
  return 0;
}

}  // namespace

void add_restore_command(CLI::App& app, util::Settings& settings, int& code) {
  auto a = std::make_shared<RestoreArgs>();
  auto* cmd = app.add_subcommand("restore",
                                 "Restore the workspace database from a backup in <workspace>/backups (stop the daemon first)");
  cmd->add_option("backup", a->backup, "Backup file (a path, or a name in <workspace>/backups); default: the newest");
  cmd->add_flag("--list", a->list, "List the backups, newest first");
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_restore(*a, settings); });
}

}  // namespace kwb::app
