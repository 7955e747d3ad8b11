#pragma once
// Kernel timestamps from CUPTI's activity API (opt-in sample clock, docs/cuda.md "Timing"): the
// start and end the GPU records for each kernel, as Nsight Systems and Nsight Compute report
// them, instead of CUDA events around the launch, whose window also holds the launch latency
// (~1.5 us on the H200). libcupti is loaded with dlopen; where it is missing or refuses, the
// runner keeps CUDA events.
#include <cstdint>
#include <string>
#include <vector>

namespace kwb::gpu {

class CuptiClock {
 public:
  // Loads libcupti and enables concurrent-kernel activity records; false with `error` set.
  bool open(std::string& error);
  bool ready() const { return m_ready; }
  // Flushes the records and returns last end - first start over the kernels launched since the
  // previous take() whose names are in `names`; `count` is how many there were.
  int64_t take(const std::vector<std::string>& names, int& count);

 private:
  bool m_ready = false;
  void* m_lib = nullptr;
};

}  // namespace kwb::gpu
