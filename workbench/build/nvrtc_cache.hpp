#pragma once
// Cubin cache, keyed like ccache (docs/architecture.md "Caches and keys"): a version salt, then one
// delimited section per input (NVRTC version, architecture, every option in order, program name,
// source digest). Entries live in <dir>/<key>.cubin with the compile log in <key>.log, the L2
// eviction-policy instruction the PTX uses in <key>.l2 (empty when none), the PTX in <key>.ptx
// (compiler facts, GET /v1/candidates/{id}/artifacts/ptx) and the text that was hashed in <key>.key
// (a debug dump); every file is written atomically and the cubin last, so a present cubin means a
// complete entry. Only successful compiles are stored; a hit returns the same cubin and log as the
// miss did.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::build {

struct CubinKey {
  std::string text;  // everything hashed, one section per line
  std::string hex;   // sha256 of text
};

CubinKey cubin_key(const std::string& nvrtc_version, const std::string& arch, const std::vector<std::string>& options,
                   const std::string& program_name, const std::string& source);

struct CachedCubin {
  std::string cubin, log, l2_policy, ptx;
};

class CubinCache {
 public:
  explicit CubinCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}
  std::optional<CachedCubin> find(const CubinKey& key) const;
  util::Result<void> put(const CubinKey& key, const CachedCubin& entry) const;
  const std::filesystem::path& dir() const { return m_dir; }

 private:
  std::filesystem::path m_dir;
};

}  // namespace kwb::build
