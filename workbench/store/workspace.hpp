#pragma once
// Start-up checks of a workspace folder (kwb serve): a database that is missing or empty while
// the workspace holds data means the database was lost, not that the workspace is new; job
// folders left by a killed process are removed.
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::store {

// The data a workspace holds besides kwb.db: "objects/ (12 files)", "library/", "admin.token",
// "backups/ (3 backups)"; empty for a new workspace.
std::vector<std::string> workspace_data(const std::filesystem::path& workspace);

// Fails when workspace/kwb.db is missing or 0 bytes while workspace_data() is not empty, naming
// what was found and how to recover (kwb restore, or moving the data aside).
util::Result<void> check_database_present(const std::filesystem::path& workspace);

// Removes the folders under `jobs_dir` that no live process claims (util::dir_in_use): those of
// a killed daemon or `kwb eval`. Returns how many were removed.
int remove_orphan_job_dirs(const std::filesystem::path& jobs_dir);

}  // namespace kwb::store
