#pragma once
// kwb-analyzer worker processes: libclang runs there, never in the caller. A worker is kept warm
// (libclang loaded, precompiled headers mapped) and reused; one that crashes or exceeds the
// timeout on a source is killed, and the source gets a `parse` error finding (a hostile source
// cannot take the daemon down, nor skip analysis by crashing it).
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "analysis/engine.hpp"
#include "util/error.hpp"

namespace kwb::analysis::detail {

struct WorkerConfig {
  std::filesystem::path executable;  // kwb-analyzer
  EngineConfig engine;
  std::chrono::milliseconds timeout{30000};
};

// KWB_ANALYZER, else kwb-analyzer beside the running executable or in ../bin.
std::filesystem::path default_worker_path();

class WorkerPool {
 public:
  ~WorkerPool();
  // `cacheable` is false when the outcome depends on more than the source (a timeout).
  Report run(const Request& request, const WorkerConfig& config, bool& cacheable);
  bool warm_up(const std::string& backend, const WorkerConfig& config);
  void reset();  // ends the idle workers (the configuration changed)
  void stop();   // ends every worker, busy ones too, and starts no more (analyzer.hpp stop_workers)

 private:
  struct Worker;
  struct Exchange;
  util::Result<std::unique_ptr<Worker>> take(const WorkerConfig& config);
  void give_back(std::unique_ptr<Worker> w);
  Exchange exchange(Worker& w, const std::string& line, std::chrono::milliseconds timeout);
  EngineConfig shared_engine_config(const EngineConfig& c);
  void reaped(pid_t pid);  // a worker's process was waited for: no longer ours to signal
  bool stopped();

  std::mutex m_mutex;
  std::vector<std::unique_ptr<Worker>> m_idle;
  std::set<pid_t> m_live;  // every started worker not yet reaped, idle or busy
  bool m_stopped = false;
  std::filesystem::path m_private_cache;  // shared by the workers when no cache dir is configured
};

WorkerPool& worker_pool();

}  // namespace kwb::analysis::detail
