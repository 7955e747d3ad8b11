#pragma once
// Small file-system helpers. Writes are atomic (temp file + rename).
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace kwb::util {

Result<std::string> read_file(const std::filesystem::path& path);
// Reads a file without following a symlink in its last component (for hostile job directories).
Result<std::string> read_file_nofollow(const std::filesystem::path& path, size_t max_bytes);
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view data);
// Creates a fresh uniquely named directory under `parent` (created if missing).
Result<std::filesystem::path> make_unique_dir(const std::filesystem::path& parent, std::string_view prefix);

}  // namespace kwb::util
