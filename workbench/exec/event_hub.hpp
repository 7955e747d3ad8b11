#pragma once
// Wakes event-stream readers when a candidate gets new events (the events themselves are in the
// database; readers re-query after a wake-up or a heartbeat timeout).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace kwb::exec {

class EventHub {
 public:
  void publish(const std::string& candidate_id);
  // The candidate's current version (number of publishes seen).
  uint64_t version(const std::string& candidate_id) const;
  // Waits until the version differs from `seen` or `timeout` passes; returns the new version.
  uint64_t wait(const std::string& candidate_id, uint64_t seen, std::chrono::milliseconds timeout) const;
  void shutdown();
  bool is_shutdown() const;

 private:
  mutable std::mutex m_mutex;
  mutable std::condition_variable m_cv;
  std::map<std::string, uint64_t> m_versions;
  bool m_shutdown = false;
};

}  // namespace kwb::exec
