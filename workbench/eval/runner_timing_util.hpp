#pragma once
// Small helpers shared by the trusted timing of CPU calls (runner_client_timing.cpp) and of
// cuda-launcher samples (runner_client_gpu_paced.cpp).
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace kwb::eval::detail {

// CLOCK_MONOTONIC, the clock kwb-runner reads too (for the cross-check of its figures).
inline int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// "12.3 us", for reasons.
inline std::string us(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", double(ns) / 1e3);
  return buf;
}

}  // namespace kwb::eval::detail
