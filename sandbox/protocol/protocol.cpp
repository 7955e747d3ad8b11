#include "protocol/protocol.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace kwb::wire {

bool write_line(int fd, const nlohmann::json& msg) {
  std::string line = msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

LineReader::Status LineReader::read(nlohmann::json& out, int timeout_ms) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  while (true) {
    if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
      std::string line = m_buffer.substr(0, nl);
      m_buffer.erase(0, nl + 1);
      try {
        out = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception&) {
        return Status::bad_json;
      }
      return Status::ok;
    }
    if (m_buffer.size() > k_max_line) return Status::too_long;
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (left <= 0) return Status::timeout;
      wait_ms = int(left);
    }
    pollfd p{m_fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::closed;
    }
    if (r == 0) return Status::timeout;
    char buf[65536];
    ssize_t n = ::read(m_fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Status::closed;
    }
    if (n == 0) return Status::closed;
    m_buffer.append(buf, size_t(n));
  }
}

}  // namespace kwb::wire
