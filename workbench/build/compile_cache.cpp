#include "build/compile_cache.hpp"

#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::build {

namespace {
constexpr const char* k_salt = "kwb-compile-cache-v1";
}

std::string cache_key(const CacheKeyParts& p, std::string* hashed_text) {
  std::string text = std::string(k_salt) + "\n[kind]\n" + p.kind + "\n[toolchain]\n" + p.toolchain + "\n[flags]\n";
  for (const auto& f : p.flags) text += f + "\n";
  text += "[target]\n" + p.target + "\n[source sha256]\n" + util::sha256_hex(p.source) + "\n";
  if (hashed_text) *hashed_text = text;
  return util::sha256_hex(text);
}

std::filesystem::path CompileCache::path_of(const std::string& key) const {
  return m_dir / key.substr(0, 2) / key.substr(2);
}

std::optional<std::filesystem::path> CompileCache::lookup(const std::string& key) const {
  std::error_code ec;
  auto p = path_of(key);
  if (std::filesystem::is_regular_file(std::filesystem::symlink_status(p, ec))) return p;
  return std::nullopt;
}

util::Result<void> CompileCache::store(const std::string& key, const std::filesystem::path& file, size_t max_bytes) {
  auto data = util::read_file_nofollow(file, max_bytes);
  if (!data) return std::unexpected(data.error());
  return util::write_file_atomic(path_of(key), *data);
}

}  // namespace kwb::build
