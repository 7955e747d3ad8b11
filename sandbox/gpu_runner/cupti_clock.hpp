#pragma once
// Kernel timestamps from CUPTI's activity API (the default sample clock, docs/cuda.md "Timing"):
// the start and end the GPU records for each kernel, as Nsight Systems and Nsight Compute report
// them, instead of CUDA events around the launch, whose window also holds the launch latency
// (~1.5 us on the H200). libcupti is loaded with dlopen; where it is missing or refuses, the
// runner keeps CUDA events.
#include <cstdint>
#include <string>
#include <vector>

namespace kwb::gpu {

class CuptiClock {
 public:
  // Loads libcupti (dlopen and symbol lookup, ~10 ms: done at the session's start-up, before
  // a candidate is known); false with `error` set.
  bool load(std::string& error);
  // load() and enables kernel activity records; false with `error` set.
  bool open(std::string& error);
  bool ready() const { return m_ready; }
  // Flushes the records and returns last end - first start over the kernels launched since the
  // previous take() whose names are in `names`; `count` is how many there were.
  int64_t take(const std::vector<std::string>& names, int& count);
  // A queued batch: the kernels named in `names` that started at or after `since` (a now()
  // reading taken before the batch was queued: records of earlier launches can arrive late, in a
  // later flush), in start order, cut into consecutive groups of `per_sample` (one group per
  // sample); each group's span. Empty when the records are not the `expected` number of launches
  // (flushed a second time before giving up, for records of the last kernels that arrive late).
  // `recorded` is how many launches of `names` CUPTI reported.
  std::vector<int64_t> take_each(const std::vector<std::string>& names, uint64_t since, size_t per_sample,
                                 size_t expected, size_t& recorded);
  // CUPTI's clock, which its records use (0 when not ready).
  uint64_t now() const;

 private:
  bool m_ready = false;
  bool m_loaded = false;
  std::string m_load_error;
  void* m_lib = nullptr;
};

}  // namespace kwb::gpu
