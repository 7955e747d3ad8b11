#pragma once
// The daemon's housekeeping thread: sweeps the workspace (store::Janitor: cache limits, the
// free-space reserve, orphaned job folders) every 30 s and writes an online backup of the
// database into workspace/backups/ every `backup_interval` (the first at start-up when the
// newest backup is older than that).
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "store/janitor.hpp"

namespace kwb::app {

struct HousekeepingConfig {
  std::filesystem::path db_file, backups_dir;
  std::chrono::seconds backup_interval{86400};  // 0: no backups
  int backups_kept = 7;
  std::chrono::seconds sweep_interval{30};
};

class Housekeeping {
 public:
  Housekeeping(store::Janitor& janitor, HousekeepingConfig cfg) : m_janitor(janitor), m_cfg(std::move(cfg)) {}
  ~Housekeeping() { stop(); }
  void start();
  void stop();

 private:
  void run();
  bool backup_due() const;
  store::Janitor& m_janitor;
  HousekeepingConfig m_cfg;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_stopping = false;
  bool m_backup_skipped = false;
  std::thread m_thread;
};

}  // namespace kwb::app
