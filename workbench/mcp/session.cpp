#include "mcp/session.hpp"

#include <fstream>
#include <random>

namespace kwb::mcp {

namespace {

std::string random_id() {
  unsigned char bytes[16];
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes)) {
    std::random_device rd;  // /dev/urandom unreadable: the library's source of entropy
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace

std::string SessionStore::create(Handshake h) {
  std::string id = random_id();
  std::lock_guard lock(m_mutex);
  auto now = std::chrono::steady_clock::now();
  while (!m_sessions.empty() && m_sessions.size() >= m_max) {
    auto oldest = m_sessions.begin();
    for (auto it = m_sessions.begin(); it != m_sessions.end(); ++it)
      if (it->second.used < oldest->second.used) oldest = it;
    m_sessions.erase(oldest);
  }
  auto s = std::make_shared<LegacySession>();
  s->handshake = std::move(h);
  s->handshaken = true;
  m_sessions[id] = {std::move(s), now};
  return id;
}

std::shared_ptr<LegacySession> SessionStore::find(const std::string& id) {
  std::lock_guard lock(m_mutex);
  auto it = m_sessions.find(id);
  if (it == m_sessions.end()) return nullptr;
  auto now = std::chrono::steady_clock::now();
  if (now - it->second.used > m_idle) {
    m_sessions.erase(it);
    return nullptr;
  }
  it->second.used = now;
  return it->second.session;
}

bool SessionStore::end(const std::string& id) {
  std::lock_guard lock(m_mutex);
  return m_sessions.erase(id) > 0;
}

size_t SessionStore::size() const {
  std::lock_guard lock(m_mutex);
  return m_sessions.size();
}

}  // namespace kwb::mcp
