#pragma once
// Queued candidates, served round-robin across tokens so one busy agent cannot starve the
// others; within a token, oldest first.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kwb::exec {

class FairQueue {
 public:
  void push(int64_t token, const std::string& id);
  // Blocks until an item is available or stop() was called (then nullopt).
  std::optional<std::string> pop();
  bool remove(const std::string& id);
  size_t size() const;
  void stop();

 private:
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::map<int64_t, std::deque<std::string>> m_by_token;
  int64_t m_last_token = INT64_MIN;  // the token served last; the next pop starts after it
  size_t m_size = 0;
  bool m_stopped = false;
};

}  // namespace kwb::exec
