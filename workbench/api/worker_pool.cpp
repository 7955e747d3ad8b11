#include "api/worker_pool.hpp"

namespace kwb::api {

WorkerPool::WorkerPool(size_t max_threads, size_t max_queued)
    : m_max_threads(std::max<size_t>(1, max_threads)), m_max_queued(max_queued) {}

WorkerPool::~WorkerPool() { shutdown(); }

bool WorkerPool::post(std::function<void()> job) {
  std::lock_guard lock(m_mutex);
  if (m_stop) return false;
  // Jobs already queued will take the idle threads first.
  bool idle_thread = m_idle > m_jobs.size();
  if (!idle_thread && m_threads.size() < m_max_threads) {
    m_threads.emplace_back([this] { loop(); });
  } else if (!idle_thread && m_jobs.size() >= m_max_queued) {
    return false;
  }
  m_jobs.push_back(std::move(job));
  m_cv.notify_one();
  return true;
}

size_t WorkerPool::busy() const {
  std::lock_guard lock(m_mutex);
  return m_threads.size() - m_idle;
}

size_t WorkerPool::queued() const {
  std::lock_guard lock(m_mutex);
  return m_jobs.size();
}

void WorkerPool::loop() {
  std::unique_lock lock(m_mutex);
  while (true) {
    ++m_idle;
    m_cv.wait(lock, [this] { return m_stop || !m_jobs.empty(); });
    --m_idle;
    if (m_jobs.empty()) return;  // stopping, nothing left
    auto job = std::move(m_jobs.front());
    m_jobs.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

void WorkerPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
    threads.swap(m_threads);
  }
  m_cv.notify_all();
  for (auto& t : threads) t.join();
}

}  // namespace kwb::api
