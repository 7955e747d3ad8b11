#include "exec/event_hub.hpp"

namespace kwb::exec {

EventHub::Slot& EventHub::slot(const std::string& id) const {
  auto& s = m_slots[id];
  if (!s) s = std::make_unique<Slot>();
  return *s;
}

void EventHub::publish(const std::string& id) {
  std::lock_guard lock(m_mutex);
  Slot& s = slot(id);
  ++s.version;
  s.cv.notify_all();
}

uint64_t EventHub::version(const std::string& id) const {
  std::lock_guard lock(m_mutex);
  auto it = m_slots.find(id);
  return it == m_slots.end() ? 0 : it->second->version;
}

uint64_t EventHub::wait(const std::string& id, uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_mutex);
  Slot& s = slot(id);  // never removed: the reference stays valid
  s.cv.wait_for(lock, timeout, [&] { return m_shutdown || s.version != seen; });
  return s.version;
}

bool EventHub::is_shutdown() const {
  std::lock_guard lock(m_mutex);
  return m_shutdown;
}

void EventHub::shutdown() {
  std::lock_guard lock(m_mutex);
  m_shutdown = true;
  for (auto& [id, s] : m_slots) s->cv.notify_all();
}

}  // namespace kwb::exec
