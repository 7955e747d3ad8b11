// Paced timing of cuda-launcher candidates (protocol.hpp "paced", docs/security.md "Trusted GPU
// timing"). A launcher's host code runs in this process, so every figure this process reports is
// the candidate's to forge (it can patch the driver's code, or this runner's). The trusted side
// therefore brackets each sample with its own clock: per sample it writes 'p' on GO; the runner
// poisons the outputs and flushes L2 and waits for the device (untimed), then answers 'r' on DONE;
// the evaluator reads its clock and writes 'g'; the runner records the start event, calls the
// entry, records the stop event, waits for both and for the whole context (work on other
// streams), and writes {event ns, flags} (two int64) on DONE, after which the evaluator reads its
// clock again. The events' window lies inside the evaluator's, so a figure above it is forged,
// and the evaluator raises any figure to its own window less the handshake's allowance. 'e' on GO
// ends the batch (no reply; `fetch` brings the last sample's outputs back).
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "gpu_runner/gpu_runner.hpp"

namespace kwb::gpu {

namespace {

bool read_byte(int fd, char& c) {
  for (;;) {
    ssize_t n = ::read(fd, &c, 1);
    if (n == 1) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

bool write_all(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}

}  // namespace

GpuRunner::Paced GpuRunner::paced_samples(std::string& error) {
  for (;;) {
    char c = 0;
    if (!read_byte(m_go_fd, c)) return Paced::broken;
    if (c == 'e') return Paced::done;
    if (c != 'p') return Paced::broken;
    int64_t msg[2] = {-1, k_paced_failed};
    if (auto s = prepare_sample(); !s.empty()) error = s;
    if (error.empty()) error = check(m_cu.cuStreamSynchronize(m_stream), "[fault] the kernel failed");
    const char ready = error.empty() ? 'r' : 'x';
    if (!write_all(m_done_fd, &ready, 1)) return Paced::broken;
    if (!error.empty()) return Paced::failed;
    if (!read_byte(m_go_fd, c) || c != 'g') return Paced::broken;
    m_cu.cuEventRecord(m_start, m_stream);
    error = launch_plan();
    if (error.empty()) {
      m_cu.cuEventRecord(m_stop, m_stream);
      error = check(m_cu.cuEventSynchronize(m_stop), "[fault] the kernel failed");
    }
    int64_t long_wait = 0;  // work the candidate may have left running elsewhere: charged to it
    if (error.empty()) error = check_no_escape(&long_wait);
    if (error.empty()) {
      float ms = 0;
      m_cu.cuEventElapsedTime(&ms, m_start, m_stop);
      unsigned clock = 0;
      msg[0] = std::llround(double(ms) * 1e6) + long_wait;
      msg[1] = throttled(clock) ? k_paced_throttled : 0;
      ++m_event_samples;
    }
    if (!write_all(m_done_fd, msg, sizeof msg)) return Paced::broken;
    if (!error.empty()) return Paced::failed;
  }
}

}  // namespace kwb::gpu
