#pragma once
// Wakes event-stream readers when a candidate gets new events (the events themselves are in the
// database; readers re-query after a wake-up or a heartbeat timeout). Each candidate has its own
// condition variable: an event wakes the readers of its candidate only (with one shared one,
// every open stream woke on every event of any candidate: docs/benchmarks/fleet.md "100 GPUs").
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
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
  struct Slot {
    uint64_t version = 0;
    std::condition_variable cv;
  };
  Slot& slot(const std::string& candidate_id) const;  // under m_mutex

  mutable std::mutex m_mutex;
  mutable std::map<std::string, std::unique_ptr<Slot>> m_slots;
  bool m_shutdown = false;
};

}  // namespace kwb::exec
