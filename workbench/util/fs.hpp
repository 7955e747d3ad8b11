#pragma once
// Small file-system helpers. Writes are atomic (temp file + rename).
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace kwb::util {

Result<std::string> read_file(const std::filesystem::path& path);
// Reads a file without following a symlink in its last component (for hostile job directories).
Result<std::string> read_file_nofollow(const std::filesystem::path& path, size_t max_bytes);
// Fails with ErrorKind::storage_full on ENOSPC/EDQUOT, leaving nothing under `path`.
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data);
// write_file_atomic, then fsync of the file and of its folder: on disk once it returns.
Result<void> write_file_durable(const std::filesystem::path& path, std::string_view data);
// Creates a fresh uniquely named directory under `parent` (created if missing), claimed by this
// process (a shared flock held until the folder is removed or the process ends).
Result<std::filesystem::path> make_unique_dir(const std::filesystem::path& parent, std::string_view prefix);
// Whether a live process still claims a folder made by make_unique_dir (this one included).
bool dir_in_use(const std::filesystem::path& dir);

}  // namespace kwb::util
