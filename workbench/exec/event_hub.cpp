#include "exec/event_hub.hpp"

namespace kwb::exec {

void EventHub::publish(const std::string& id) {
  {
    std::lock_guard lock(m_mutex);
    ++m_versions[id];
  }
  m_cv.notify_all();
}

uint64_t EventHub::version(const std::string& id) const {
  std::lock_guard lock(m_mutex);
  auto it = m_versions.find(id);
  return it == m_versions.end() ? 0 : it->second;
}

uint64_t EventHub::wait(const std::string& id, uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_mutex);
  auto current = [&] {
    auto it = m_versions.find(id);
    return it == m_versions.end() ? uint64_t(0) : it->second;
  };
  m_cv.wait_for(lock, timeout, [&] { return m_shutdown || current() != seen; });
  return current();
}

bool EventHub::is_shutdown() const {
  std::lock_guard lock(m_mutex);
  return m_shutdown;
}

void EventHub::shutdown() {
  {
    std::lock_guard lock(m_mutex);
    m_shutdown = true;
  }
  m_cv.notify_all();
}

}  // namespace kwb::exec
