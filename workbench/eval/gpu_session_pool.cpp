#include "eval/gpu_session_pool.hpp"

namespace kwb::eval {

GpuSessionPool::GpuSessionPool(GpuSessionOptions opt) : m_opt(std::move(opt)) {
  m_thread = std::thread([this] { run(); });
}

GpuSessionPool::~GpuSessionPool() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_cv.notify_all();
  m_thread.join();
}

std::unique_ptr<GpuSession> GpuSessionPool::take() {
  std::unique_ptr<GpuSession> s;
  {
    std::lock_guard lock(m_mutex);
    s = std::move(m_ready);
  }
  m_cv.notify_all();
  return s;
}

std::unique_ptr<GpuSession> GpuSessionPool::take(std::chrono::milliseconds wait) {
  std::unique_ptr<GpuSession> s;
  {
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, wait, [&] { return m_ready || m_broken || m_stopping; });
    s = std::move(m_ready);
  }
  m_cv.notify_all();
  return s;
}

void GpuSessionPool::run() {
  std::unique_lock lock(m_mutex);
  while (true) {
    m_cv.wait(lock, [&] { return m_stopping || (!m_ready && !m_broken); });
    if (m_stopping) return;
    lock.unlock();
    auto started = start_gpu_session(m_opt);
    lock.lock();
    if (!started || !(*started)->device.value("present", false)) {
      m_broken = true;
    } else {
      m_ready = std::move(*started);
    }
    m_cv.notify_all();  // a waiting take()
  }
}

}  // namespace kwb::eval
