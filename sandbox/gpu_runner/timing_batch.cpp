// Timing batches (docs/cuda.md "Running: kwb-gpu-runner"). Every sample re-poisons the outputs,
// zeroes the workspace and flushes L2 (untimed), then runs the plan between two events.
// - cuda form: the batch is queued whole and synchronised once, so the host stays ahead of the
//   device and a sample costs the flush and the kernels, not a host round trip (with a sync,
//   NVML query and CUPTI flush per sample, a 5 us kernel took ~0.5 ms per sample on the H200).
//   CUPTI's records are matched to samples in start order. A kernel that sets L2 eviction
//   policies waits for the device before each sample instead (reset_persisting_each_sample).
// - cuda-launcher: one sample at a time, by CUDA events: the host entry runs between the events,
//   and every sample ends with the check for work that escaped the stream.
#include <cmath>

#include "gpu_runner/gpu_runner.hpp"

namespace kwb::gpu {

namespace {
constexpr int k_max_retakes_per_sample = 2;
}  // namespace

std::string GpuRunner::prepare_sample() {
  for (const auto& b : m_buffers)
    if (b.output) m_cu.cuMemsetD8Async(m_arena + b.offset, 0xFF, b.bytes, m_stream);
  if (m_workspace_bytes) m_cu.cuMemsetD8Async(m_workspace, 0, m_workspace_bytes, m_stream);
  return flush_l2(reset_persisting_each_sample());
}

std::string GpuRunner::time_queued(int calls, std::vector<int64_t>& ns) {
  while (m_batch_events.size() < size_t(2 * calls)) {
    CUevent e = nullptr;
    if (auto s = check(m_cu.cuEventCreate(&e, CU_EVENT_DEFAULT), "creating timing events"); !s.empty()) return s;
    m_batch_events.push_back(e);
  }
  std::vector<std::string> names;
  for (const auto& k : m_kernels) names.push_back(k.name);
  // The SM clock is read once the batch is done (the device was busy up to then); a throttled
  // batch is taken again once, then kept and counted.
  uint64_t since = 0;
  for (int attempt = 0;; ++attempt) {
    since = m_use_cupti ? m_cupti.now() : 0;
    const bool each = reset_persisting_each_sample();
    if (!each) m_cu.cuCtxResetPersistingL2Cache();  // once per batch (what a previous candidate left)
    for (int i = 0; i < calls; ++i) {
      // The reset acts when called, not in stream order: the device must be idle for it to fall
      // between two samples.
      if (each)
        if (auto s = check(m_cu.cuStreamSynchronize(m_stream), "[fault] the kernel failed"); !s.empty()) return s;
      if (auto s = prepare_sample(); !s.empty()) return s;
      m_cu.cuEventRecord(m_batch_events[2 * i], m_stream);
      if (auto s = launch_plan(); !s.empty()) return s;
      m_cu.cuEventRecord(m_batch_events[2 * i + 1], m_stream);
    }
    if (auto s = check(m_cu.cuEventSynchronize(m_batch_events[2 * calls - 1]), "[fault] the kernel failed");
        !s.empty())
      return s;
    unsigned clock = 0;
    if (!throttled(clock)) break;
    if (attempt == 0) {
      m_discarded += calls;
      size_t dropped = 0;
      if (m_use_cupti) m_cupti.take_each(names, since, m_kernels.size(), 0, dropped);  // drop the batch's records
      continue;
    }
    m_throttled_kept += calls;
    break;
  }
  // CUPTI's spans when it recorded every launch of every sample; the events' otherwise.
  const size_t launches = size_t(calls) * m_kernels.size();
  size_t recorded = 0;
  std::vector<int64_t> spans =
      m_use_cupti ? m_cupti.take_each(names, since, m_kernels.size(), launches, recorded) : std::vector<int64_t>{};
  const bool by_cupti = spans.size() == size_t(calls);
  if (m_use_cupti && !by_cupti) {  // reported by stats, and in the verdict as a note
    ++m_cupti_short_batches;
    m_cupti_short_detail = std::to_string(recorded) + " of " + std::to_string(launches) + " launches";
  }
  for (int i = 0; i < calls; ++i) {
    if (by_cupti && spans[size_t(i)] > 0) {
      ns.push_back(spans[size_t(i)]);
      ++m_cupti_samples;
      continue;
    }
    float ms = 0;
    m_cu.cuEventElapsedTime(&ms, m_batch_events[2 * i], m_batch_events[2 * i + 1]);
    ns.push_back(std::llround(double(ms) * 1e6));
    ++m_event_samples;
  }
  return {};
}

std::string GpuRunner::time_one_by_one(int calls, std::vector<int64_t>& ns) {
  int retakes = 0, sample_retakes = 0;
  for (int i = 0; i < calls;) {
    if (auto s = prepare_sample(); !s.empty()) return s;
    m_cu.cuEventRecord(m_start, m_stream);
    if (auto s = launch_plan(); !s.empty()) return s;
    m_cu.cuEventRecord(m_stop, m_stream);
    if (auto s = check(m_cu.cuEventSynchronize(m_stop), "[fault] the kernel failed"); !s.empty()) return s;
    int64_t long_wait = 0;  // work the candidate may have left running elsewhere: charged to it
    if (auto s = check_no_escape(&long_wait); !s.empty()) return s;
    float ms = 0;
    m_cu.cuEventElapsedTime(&ms, m_start, m_stop);
    unsigned clock = 0;
    if (throttled(clock)) {
      if (sample_retakes < k_max_retakes_per_sample && retakes < calls) {  // take it again
        ++sample_retakes;
        ++retakes;
        ++m_discarded;
        continue;
      }
      ++m_throttled_kept;
    }
    ns.push_back(std::llround(double(ms) * 1e6) + long_wait);
    ++m_event_samples;
    sample_retakes = 0;
    ++i;
  }
  return {};
}

}  // namespace kwb::gpu
