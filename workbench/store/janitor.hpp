#pragma once
// Keeps the workspace's disk for the database: size limits on the caches (workspace/cache/*),
// least recently written entries evicted first; below a reserve of free space, caches are
// evicted further before the database is starved; job folders no live process claims are
// removed. The daemon sweeps at start-up, periodically, and when a write hits a full disk.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kwb::store {

struct CacheLimit {
  std::filesystem::path dir;
  uint64_t max_bytes = 0;
  // Which files are evictable entries (others, e.g. the analysis cache's stub headers, stay).
  std::function<bool(const std::filesystem::path&)> evictable;
};

struct JanitorConfig {
  std::filesystem::path workspace;  // free space is measured on its file system
  std::vector<CacheLimit> caches;
  std::filesystem::path jobs_dir;   // empty: job folders are left alone
  uint64_t reserve_bytes = 256ull << 20;
};

// The daemon's caches with the default limits: cache/analysis (PCH files only), cache/cpu,
// cache/nvcc, cache/cubin, each `cache_limit_bytes`.
JanitorConfig workspace_janitor_config(const std::filesystem::path& workspace, uint64_t cache_limit_bytes,
                                       uint64_t reserve_bytes);

struct SweepReport {
  std::optional<uint64_t> free_bytes;  // after the sweep; nullopt: statvfs failed
  uint64_t cache_bytes = 0;            // what the caches hold after the sweep
  uint64_t evicted_bytes = 0;
  int evicted_files = 0;
  int removed_jobs = 0;
  bool low_space() const;              // free space still below the reserve
  uint64_t reserve_bytes = 0;
};

class Janitor {
 public:
  explicit Janitor(JanitorConfig cfg) : m_cfg(std::move(cfg)) {}
  // Enforces the limits and the reserve. `need_bytes`: free at least this much beyond the
  // reserve if the caches allow (a write just failed for want of space).
  SweepReport sweep(uint64_t need_bytes = 0);
  SweepReport last() const;
  std::optional<uint64_t> free_bytes() const;
  const JanitorConfig& config() const { return m_cfg; }

 private:
  JanitorConfig m_cfg;
  mutable std::mutex m_mutex;  // one sweep at a time
  SweepReport m_last;
};

}  // namespace kwb::store
