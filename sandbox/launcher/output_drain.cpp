#include "launcher/output_drain.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

namespace kwb::sandbox::detail {

OutputDrain::OutputDrain(int out_fd, int err_fd, int64_t cap_bytes, std::function<void()> on_overflow)
    : m_cap(std::max<int64_t>(cap_bytes, 0)), m_on_overflow(std::move(on_overflow)) {
  m_out.fd = out_fd;
  m_err.fd = err_fd;
  m_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  m_thread = std::thread([this] { loop(); });
}

OutputDrain::~OutputDrain() {
  finish(std::chrono::milliseconds(0));
  if (m_wake_fd >= 0) close(m_wake_fd);
}

void OutputDrain::finish(std::chrono::milliseconds grace) {
  if (!m_thread.joinable()) return;
  m_grace_ms.store(grace.count());
  if (m_wake_fd >= 0) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(m_wake_fd, &one, sizeof one);
  } else {
    m_grace_ms.store(0);  // no way to wake the thread early; it ends at EOF
  }
  m_thread.join();
}

void OutputDrain::append(Stream& stream, const char* data, size_t size) {
  stream.total += static_cast<int64_t>(size);
  int64_t room = m_cap - static_cast<int64_t>(stream.text.size());
  size_t keep = static_cast<size_t>(std::clamp<int64_t>(room, 0, static_cast<int64_t>(size)));
  stream.text.append(data, keep);
  if (keep < size) stream.truncated = true;
}

void OutputDrain::loop() {
  using clock = std::chrono::steady_clock;
  std::optional<clock::time_point> deadline;  // set once finish() was called
  char buf[64 * 1024];
  while (m_out.fd >= 0 || m_err.fd >= 0) {
    int timeout = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - clock::now()).count();
      if (left <= 0) break;
      timeout = static_cast<int>(left);
    }
    pollfd fds[3] = {{m_out.fd, POLLIN, 0}, {m_err.fd, POLLIN, 0}, {deadline ? -1 : m_wake_fd, POLLIN, 0}};
    int ready = poll(fds, 3, timeout);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[2].revents & POLLIN) deadline = clock::now() + std::chrono::milliseconds(m_grace_ms.load());
    Stream* streams[2] = {&m_out, &m_err};
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) continue;
      ssize_t n = read(streams[i]->fd, buf, sizeof buf);
      if (n > 0) {
        append(*streams[i], buf, static_cast<size_t>(n));
        if (streams[i]->truncated && m_on_overflow) {  // the writer gets SIGPIPE next
          close(streams[i]->fd);
          streams[i]->fd = -1;
          std::exchange(m_on_overflow, nullptr)();
        }
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(streams[i]->fd);
        streams[i]->fd = -1;
      }
    }
  }
  for (Stream* s : {&m_out, &m_err}) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
  }
}

Captured OutputDrain::take(Stream& stream, int64_t cap) {
  Captured c{std::move(stream.text), stream.truncated};
  if (c.truncated) c.text += "\n[kwb: output truncated after " + std::to_string(cap) + " bytes]";
  return c;
}

Captured OutputDrain::take_stdout() { return take(m_out, m_cap); }
Captured OutputDrain::take_stderr() { return take(m_err, m_cap); }

}  // namespace kwb::sandbox::detail
