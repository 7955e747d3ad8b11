#pragma once
// Reads a sandbox's stdout and stderr pipes on a background thread so the command never blocks
// on a full pipe. Keeps at most `cap` bytes of each, discards (but keeps reading) the rest, and
// marks the text as truncated with a note.
#include <atomic>
#include <chrono>
#include <cstdint>
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
  OutputDrain(int out_fd, int err_fd, int64_t cap_bytes);
  ~OutputDrain();
  OutputDrain(const OutputDrain&) = delete;
  OutputDrain& operator=(const OutputDrain&) = delete;

  // Lets the thread read until both pipes reach end-of-file, but for at most `grace` more, then
  // joins it. Idempotent.
  void finish(std::chrono::milliseconds grace);
  // Valid after finish().
  Captured take_stdout();
  Captured take_stderr();

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
  int m_wake_fd = -1;  // eventfd: finish() was called
  std::atomic<int64_t> m_grace_ms{0};
  std::thread m_thread;
};

}  // namespace kwb::sandbox::detail
