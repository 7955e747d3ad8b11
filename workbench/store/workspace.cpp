#include "store/workspace.hpp"

#include "store/backup.hpp"
#include "util/fs.hpp"

namespace kwb::store {

namespace fs = std::filesystem;

namespace {

size_t count_files(const fs::path& dir, size_t cap) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator() && n < cap; it.increment(ec))
    if (it->is_regular_file(ec)) ++n;
  return n;
}

}  // namespace

std::vector<std::string> workspace_data(const fs::path& workspace) {
  std::vector<std::string> found;
  std::error_code ec;
  if (size_t n = count_files(workspace / "objects", 1000); n > 0)
    found.push_back("objects/ (" + std::string(n >= 1000 ? "1000+" : std::to_string(n)) + " stored sources)");
  if (fs::is_directory(workspace / "library", ec)) found.push_back("library/ (the kernel library's git repository)");
  if (fs::exists(workspace / "admin.token", ec)) found.push_back("admin.token");
  if (auto b = list_backups(workspace / "backups"); !b.empty())
    found.push_back("backups/ (" + std::to_string(b.size()) + " database backups, newest " + b.front().filename().string() + ")");
  return found;
}

util::Result<void> check_database_present(const fs::path& workspace) {
  auto db = workspace / "kwb.db";
  std::error_code ec;
  bool exists = fs::exists(db, ec);
  auto size = exists ? fs::file_size(db, ec) : 0;
  if (exists && size > 0) return {};
  auto found = workspace_data(workspace);
  if (found.empty()) return {};  // a new workspace
  std::string list;
  for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
  auto backups = list_backups(workspace / "backups");
  std::string how =
      backups.empty()
          ? "no backup exists under backups/: if the database is lost for good and you mean to start afresh, move "
            "kwb.db, objects/, library/ and admin.token aside (the library's history stays in its git repository)"
          : "restore the newest backup with `kwb restore --workspace " + workspace.string() + "` (or name one: `kwb restore " +
                backups.front().string() + "`)";
  return util::fail(db.string(),
                    std::string(exists ? "is empty (0 bytes)" : "is missing") + " but the workspace holds data: " + list +
                        ". Starting would create an empty database: every candidate, verdict and token would be "
                        "gone and admin.token replaced. Refusing to start; " + how);
}

int remove_orphan_job_dirs(const fs::path& jobs_dir) {
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(jobs_dir, ec)) {
    if (!entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    if (util::dir_in_use(entry.path())) continue;
    std::error_code rm;
    fs::remove_all(entry.path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

}  // namespace kwb::store
