#pragma once
// Online backups of the workspace database into workspace/backups/ (`VACUUM INTO` from a
// connection of its own: a consistent snapshot, readers and the writer carry on) and their
// restore (`kwb restore`, with no daemon on the workspace).
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::store {

// Backups in `dir` (kwb-YYYYMMDDTHHMMSSZ.db), newest first.
std::vector<std::filesystem::path> list_backups(const std::filesystem::path& dir);

// Writes a backup of `db_file` into `dir` (temp name, fsync, rename) and removes the oldest
// beyond `keep`. Returns the backup's path.
util::Result<std::filesystem::path> backup_database(const std::filesystem::path& db_file,
                                                    const std::filesystem::path& dir, int keep);

// A backup is a complete SQLite database of this workbench: integrity check passes, schema
// version not newer than this build's migrations. Returns its schema version.
util::Result<int> check_backup(const std::filesystem::path& backup);

// Replaces `db_file` by a copy of `backup` (checked first). The database it replaces (with its
// -wal and -shm files) is moved aside to <db_file>.before-restore-<time>; `*moved_aside` names it
// (empty when there was none, or it was empty).
util::Result<void> restore_database(const std::filesystem::path& backup, const std::filesystem::path& db_file,
                                    std::filesystem::path* moved_aside);

}  // namespace kwb::store
