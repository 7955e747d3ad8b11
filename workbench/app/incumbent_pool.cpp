#include "app/incumbent_pool.hpp"

namespace kwb::app {

std::unique_ptr<eval::Evaluation> IncumbentPool::take(const IncumbentKey& key) {
  std::lock_guard lock(m_mutex);
  for (auto it = m_idle.begin(); it != m_idle.end(); ++it)
    if (it->key.text() == key.text()) {
      auto e = std::move(it->evaluation);
      m_idle.erase(it);
      return e;
    }
  return nullptr;
}

void IncumbentPool::give(const IncumbentKey& key, std::unique_ptr<eval::Evaluation> evaluation) {
  if (!evaluation) return;
  std::list<Entry> dropped;  // destroyed outside the lock (their runners stop)
  {
    std::lock_guard lock(m_mutex);
    for (auto it = m_idle.begin(); it != m_idle.end();) {
      const bool stale = it->key.device == key.device && it->key.slot == key.slot && it->key.what != key.what;
      if (stale) dropped.splice(dropped.end(), m_idle, it++);
      else ++it;
    }
    m_idle.push_front(Entry{key, std::move(evaluation)});
    while (m_idle.size() > m_max_idle) dropped.splice(dropped.end(), m_idle, std::prev(m_idle.end()));
  }
}

size_t IncumbentPool::idle() const {
  std::lock_guard lock(m_mutex);
  return m_idle.size();
}

}  // namespace kwb::app
