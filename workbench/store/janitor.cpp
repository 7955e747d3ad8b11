#include "store/janitor.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>

#include "store/workspace.hpp"

namespace kwb::store {

namespace fs = std::filesystem;

namespace {

constexpr std::chrono::minutes k_stale_temporary{10};

struct Entry {
  fs::path path;
  uint64_t bytes;
  fs::file_time_type written;
};

std::vector<Entry> entries_of(const CacheLimit& c, uint64_t* total) {
  std::vector<Entry> out;
  *total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(c.dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code e2;
    if (!it->is_regular_file(e2) || it->is_symlink(e2)) continue;
    const auto& p = it->path();
    uint64_t bytes = it->file_size(e2);
    if (e2) continue;
    auto written = it->last_write_time(e2);
    // A temporary file is being written, unless it is old: then a killed process left it.
    bool temporary = p.filename().string().find(".tmp") != std::string::npos;
    if (temporary && fs::file_time_type::clock::now() - written < k_stale_temporary) continue;
    *total += bytes;
    if (temporary || !c.evictable || c.evictable(p)) out.push_back({p, bytes, written});
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.written < b.written; });
  return out;
}

bool remove_entry(const Entry& e, SweepReport& r) {
  std::error_code ec;
  if (!fs::remove(e.path, ec)) return false;
  r.evicted_bytes += e.bytes;
  ++r.evicted_files;
  return true;
}

}  // namespace

bool SweepReport::low_space() const { return free_bytes && *free_bytes < reserve_bytes; }

JanitorConfig workspace_janitor_config(const fs::path& workspace, uint64_t cache_limit_bytes, uint64_t reserve_bytes) {
  JanitorConfig cfg;
  cfg.workspace = workspace;
  cfg.jobs_dir = workspace / "jobs";
  cfg.reserve_bytes = reserve_bytes;
  // The analysis cache's headers are rewritten only when its environment starts: only the PCHs
  // (rebuilt, or analysis goes without one) are evicted.
  cfg.caches.push_back({workspace / "cache" / "analysis", cache_limit_bytes,
                        [](const fs::path& p) { return p.extension() == ".pch"; }});
  for (const char* name : {"cpu", "nvcc", "cubin"}) cfg.caches.push_back({workspace / "cache" / name, cache_limit_bytes, {}});
  return cfg;
}

std::optional<uint64_t> Janitor::free_bytes() const {
  struct statvfs s {};
  if (::statvfs(m_cfg.workspace.c_str(), &s) != 0) return std::nullopt;
  return uint64_t(s.f_bavail) * uint64_t(s.f_frsize);
}

SweepReport Janitor::sweep(uint64_t need_bytes) {
  std::lock_guard lock(m_mutex);
  SweepReport r;
  r.reserve_bytes = m_cfg.reserve_bytes;
  if (!m_cfg.jobs_dir.empty()) r.removed_jobs = remove_orphan_job_dirs(m_cfg.jobs_dir);
  // Per-cache limits, oldest first.
  std::vector<Entry> rest;
  for (const auto& c : m_cfg.caches) {
    uint64_t total = 0;
    auto entries = entries_of(c, &total);
    size_t i = 0;
    for (; i < entries.size() && total > c.max_bytes; ++i)
      if (remove_entry(entries[i], r)) total -= entries[i].bytes;
    rest.insert(rest.end(), entries.begin() + long(i), entries.end());
    r.cache_bytes += total;
  }
  // Below the reserve (or asked for room): evict across the caches, oldest first.
  auto free = free_bytes();
  uint64_t want = m_cfg.reserve_bytes + need_bytes;
  if (free && *free < want) {
    std::sort(rest.begin(), rest.end(), [](const Entry& a, const Entry& b) { return a.written < b.written; });
    uint64_t gained = 0;
    for (const auto& e : rest) {
      if (*free + gained >= want) break;
      if (remove_entry(e, r)) {
        gained += e.bytes;
        r.cache_bytes -= std::min(r.cache_bytes, e.bytes);
      }
    }
    free = free_bytes();
  }
  r.free_bytes = free;
  m_last = r;
  return r;
}

SweepReport Janitor::last() const {
  std::lock_guard lock(m_mutex);
  return m_last;
}

}  // namespace kwb::store
