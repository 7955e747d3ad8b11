#pragma once
// Elapsed wall time for stage timings (summary.stage_ms and the like).
#include <chrono>

namespace kwb::util {

// Milliseconds from `t` to now, on the steady clock.
inline double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace kwb::util
