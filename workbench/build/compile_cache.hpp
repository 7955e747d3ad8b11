#pragma once
// Compile cache keyed like ccache: a version salt first, then delimited sections (toolchain
// identity, flags, target, source digest). Entries are written atomically; a hit is
// indistinguishable from a miss except in time (the verdict says which it was).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::build {

struct CacheKeyParts {
  std::string kind;       // "cpu-so", "cubin", ...
  std::string toolchain;  // compiler identity, e.g. "g++ 12.2.0"
  std::vector<std::string> flags;
  std::string target;     // e.g. "x86_64 -march=native on <cpu model>", "sm_90a"
  std::string source;
};

// The key (hex sha256) and, for debugging, the text that was hashed.
std::string cache_key(const CacheKeyParts& parts, std::string* hashed_text = nullptr);

class CompileCache {
 public:
  explicit CompileCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}
  std::optional<std::filesystem::path> lookup(const std::string& key) const;
  // Copies `file` (read without following symlinks, at most max_bytes) into the cache.
  util::Result<void> store(const std::string& key, const std::filesystem::path& file, size_t max_bytes);
  std::filesystem::path path_of(const std::string& key) const;

 private:
  std::filesystem::path m_dir;
};

}  // namespace kwb::build
