#include "exec/fair_queue.hpp"

#include <algorithm>

namespace kwb::exec {

void FairQueue::push(int64_t token, const std::string& id) {
  {
    std::lock_guard lock(m_mutex);
    m_by_token[token].push_back(id);
    ++m_size;
  }
  m_cv.notify_one();
}

std::optional<std::string> FairQueue::pop() {
  std::unique_lock lock(m_mutex);
  m_cv.wait(lock, [&] { return m_stopped || m_size > 0; });
  if (m_stopped) return std::nullopt;
  auto it = m_by_token.upper_bound(m_last_token);
  if (it == m_by_token.end()) it = m_by_token.begin();
  std::string id = it->second.front();
  it->second.pop_front();
  m_last_token = it->first;
  if (it->second.empty()) m_by_token.erase(it);
  --m_size;
  return id;
}

bool FairQueue::remove(const std::string& id) {
  std::lock_guard lock(m_mutex);
  for (auto it = m_by_token.begin(); it != m_by_token.end(); ++it) {
    auto& q = it->second;
    auto pos = std::find(q.begin(), q.end(), id);
    if (pos == q.end()) continue;
    q.erase(pos);
    --m_size;
    if (q.empty()) m_by_token.erase(it);
    return true;
  }
  return false;
}

size_t FairQueue::size() const {
  std::lock_guard lock(m_mutex);
  return m_size;
}

void FairQueue::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stopped = true;
  }
  m_cv.notify_all();
}

}  // namespace kwb::exec
