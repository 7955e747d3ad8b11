#pragma once
// Reads a sandbox's stdout and stderr pipes on a background thread so the command never blocks
// on a full pipe. Keeps at most `cap` bytes of each and marks the text as truncated with a note;
// the rest is read and discarded, or, with an `on_overflow` callback, the pipe is closed at the
// cap (the command's next write raises SIGPIPE) and the callback runs once, on the drain's
// thread, to stop the command (a flood of output is a violation there).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace kwb::sandbox::detail {

struct Captured {
  std::string text;
  bool truncated = false;
};

class OutputDrain {
 public:
  // Takes ownership of both read ends and starts the thread.
  OutputDrain(int out_fd, int err_fd, int64_t cap_bytes, std::function<void()> on_overflow = {});
  ~OutputDrain();
  OutputDrain(const OutputDrain&) = delete;
  OutputDrain& operator=(const OutputDrain&) = delete;

  // Lets the thread read until both pipes reach end-of-file, but for at most `grace` more, then
  // joins it. Idempotent.
  void finish(std::chrono::milliseconds grace);
  // Valid after finish().
  Captured take_stdout();
  Captured take_stderr();
  // Valid after finish(): some stream went past the cap.
  bool overflowed() const { return m_out.truncated || m_err.truncated; }

 private:
  struct Stream {
    int fd = -1;
    std::string text;
    int64_t total = 0;
    bool truncated = false;
  };
  void loop();
  void append(Stream& stream, const char* data, size_t size);
  static Captured take(Stream& stream, int64_t cap);

  Stream m_out, m_err;
  int64_t m_cap;
  std::function<void()> m_on_overflow;
  int m_wake_fd = -1;  // eventfd: finish() was called
  std::atomic<int64_t> m_grace_ms{0};
  std::thread m_thread;
};

}  // namespace kwb::sandbox::detail
