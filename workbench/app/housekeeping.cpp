#include "app/housekeeping.hpp"

#include <spdlog/spdlog.h>

#include "store/backup.hpp"

namespace kwb::app {

void Housekeeping::start() { m_thread = std::thread([this] { run(); }); }

void Housekeeping::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_cv.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

bool Housekeeping::backup_due() const {
  if (m_cfg.backup_interval.count() <= 0) return false;
  auto all = store::list_backups(m_cfg.backups_dir);
  if (all.empty()) return true;
  std::error_code ec;
  auto written = std::filesystem::last_write_time(all.front(), ec);
  if (ec) return true;
  return std::filesystem::file_time_type::clock::now() - written >= m_cfg.backup_interval;
}

void Housekeeping::run() {
  auto period = m_cfg.sweep_interval;
  if (m_cfg.backup_interval.count() > 0) period = std::min(period, m_cfg.backup_interval);
  std::unique_lock lock(m_mutex);
  while (!m_stopping) {
    lock.unlock();
    auto r = m_janitor.sweep();
    if (r.evicted_files > 0 || r.removed_jobs > 0)
      spdlog::info("workspace: evicted {} cache file(s) ({} bytes), removed {} orphaned job folder(s); {} bytes free",
                   r.evicted_files, r.evicted_bytes, r.removed_jobs, r.free_bytes.value_or(0));
    if (r.low_space())
      spdlog::warn("workspace: {} bytes free, below the reserve of {} bytes, with the caches at {} bytes",
                   r.free_bytes.value_or(0), r.reserve_bytes, r.cache_bytes);
    if (backup_due()) {
      // A backup is as large as the database: never at the cost of the store's reserve.
      std::error_code ec;
      uint64_t size = std::filesystem::file_size(m_cfg.db_file, ec);
      auto free = m_janitor.free_bytes();
      if (free && *free < size + r.reserve_bytes) {
        if (!m_backup_skipped)
          spdlog::warn("database backup skipped: {} bytes free, the backup needs {} beyond the reserve of {}",
                       *free, size, r.reserve_bytes);
        m_backup_skipped = true;
      } else {
        m_backup_skipped = false;
        auto b = store::backup_database(m_cfg.db_file, m_cfg.backups_dir, m_cfg.backups_kept);
        if (b) spdlog::info("database backed up to {}", b->string());
        else spdlog::error("database backup failed: {}", b.error().what());
      }
    }
    lock.lock();
    m_cv.wait_for(lock, period, [&] { return m_stopping; });
  }
}

}  // namespace kwb::app
