#pragma once
// A warm daemon keeps one started kwb-gpu-runner session ready (sandbox up, driver initialised,
// about 250 ms on the H200), so a candidate's validation does not wait for it: take() hands the
// ready session to exactly one evaluation and a background thread starts the next. Sessions are
// never reused across candidates (cuda_session.hpp says why). When no session is ready, take()
// returns null and the evaluation starts its own, as without a pool.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "eval/cuda_session.hpp"

namespace kwb::eval {

class GpuSessionPool {
 public:
  explicit GpuSessionPool(GpuSessionOptions opt);
  ~GpuSessionPool();
  GpuSessionPool(const GpuSessionPool&) = delete;
  GpuSessionPool& operator=(const GpuSessionPool&) = delete;

  std::unique_ptr<GpuSession> take();
  // Waits up to `wait` for the session being started (null if none comes: start failed, no
  // device, or too slow).
  std::unique_ptr<GpuSession> take(std::chrono::milliseconds wait);

 private:
  void run();

  GpuSessionOptions m_opt;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::unique_ptr<GpuSession> m_ready;
  bool m_stopping = false;
  bool m_broken = false;  // a start failed or found no device: stop trying
  std::thread m_thread;
};

}  // namespace kwb::eval
