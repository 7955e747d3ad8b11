#pragma once
// Reading and writing the small files of a cgroup (and of /proc) the way the kernel wants them
// (cgroup.hpp): whole, in one read or write, without following links.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kwb::sandbox::detail {

// Reads a small file (cgroup files, /proc); "" when it cannot be read.
std::string slurp(const std::filesystem::path& path);
// Writes `text` in one write(2), as cgroup files want; 0 or the errno.
int write_text(const std::filesystem::path& path, std::string_view text);
// The value of "key N" in a flat keyed file (memory.events, pids.events, memory.oom_control);
// -1 when absent.
int64_t keyed_value(const std::string& text, std::string_view key);
// Whether a space-separated list (cgroup.controllers, cgroup.subtree_control) holds `word`.
bool has_word(const std::string& list, std::string_view word);

}  // namespace kwb::sandbox::detail
