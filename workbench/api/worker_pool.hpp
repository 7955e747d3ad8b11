#pragma once
// A pool of threads that grows on demand up to `max_threads`, with a bounded queue. post() never
// blocks: it says no when every thread is busy and the queue is full, so the caller can answer
// 503 instead of piling work up.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kwb::api {

class WorkerPool {
 public:
  WorkerPool(size_t max_threads, size_t max_queued);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  bool post(std::function<void()> job);
  void shutdown();  // runs what is queued, then joins every thread
  size_t busy() const;
  size_t queued() const;

 private:
  void loop();

  size_t m_max_threads, m_max_queued;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::function<void()>> m_jobs;
  std::vector<std::thread> m_threads;
  size_t m_idle = 0;
  bool m_stop = false;
};

}  // namespace kwb::api
