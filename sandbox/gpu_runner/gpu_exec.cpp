// Running the plan: validation calls, cold timing batches (docs/cuda.md "Running: kwb-gpu-runner")
// and calibration.
#include <algorithm>
#include <cmath>

#include "gpu_runner/gpu_runner.hpp"

namespace kwb::gpu {

namespace {
constexpr double k_throttle_fraction = 0.9;  // SM clock below 90 % of its maximum
}  // namespace

std::string GpuRunner::launch_plan() {
  if (m_launcher) return run_launcher();
  for (size_t i = 0; i < m_kernels.size(); ++i) {
    const Kernel& k = m_kernels[i];
    const LaunchDims& d = m_dims[i];
    CUresult rc = m_cu.cuLaunchKernel(k.fn, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2],
                                      d.smem, m_stream, m_arg_ptrs[i].data(), nullptr);
    if (rc != CUDA_SUCCESS) return "[launch] launching kernel '" + k.name + "' failed: " + m_cu.describe(rc);
  }
  return {};
}

std::string GpuRunner::dirty_shared_memory() {
  if (!m_dirty || m_smem_optin <= 0) return {};
  unsigned words = unsigned(m_smem_optin) / 4, pattern = 0xFFFFFFFFu;
  void* args[] = {&words, &pattern};
  return check(m_cu.cuLaunchKernel(m_dirty, unsigned(2 * m_sms), 1, 1, 1024, 1, 1, unsigned(m_smem_optin), m_stream,
                                   args, nullptr),
               "poisoning shared memory");
}

// A sample was taken while the SM clock was throttled: below 90 % of its maximum, or slowed by
// heat or a hardware slowdown (NVML). Without NVML nothing counts as throttled.
bool GpuRunner::throttled(unsigned& clock_mhz) {
  clock_mhz = m_nvml.ready() ? m_nvml.sm_clock_mhz() : 0;
  if (clock_mhz == 0) return false;
  m_clock_min = m_clock_min ? std::min(m_clock_min, clock_mhz) : clock_mhz;
  m_clock_max = std::max(m_clock_max, clock_mhz);
  uint64_t bad = Nvml::k_hw_slowdown | Nvml::k_sw_thermal | Nvml::k_hw_thermal | Nvml::k_hw_power_brake;
  return (m_max_clock && clock_mhz < k_throttle_fraction * m_max_clock) || (m_nvml.throttle_reasons() & bad);
}

nlohmann::json GpuRunner::call() {
  if (auto s = prepare_args(); !s.empty()) return reply_error(s);
  std::string error;
  if (!load_helpers(error)) return reply_error(error);
  if (auto s = upload_arena(); !s.empty()) return reply_error(s);
  if (m_workspace_bytes)
    if (auto s = check(m_cu.cuMemsetD8(m_workspace, 0, m_workspace_bytes), "zeroing the workspace"); !s.empty())
      return reply_error(s);
  if (auto s = dirty_shared_memory(); !s.empty()) return reply_error(s);
  m_cu.cuEventRecord(m_start, m_stream);
  if (auto s = launch_plan(); !s.empty()) return reply_error(s);
  m_cu.cuEventRecord(m_stop, m_stream);
  if (auto s = check_no_escape(); !s.empty()) return reply_error(s);
  if (auto s = check(m_cu.cuCtxSynchronize(), "[fault] the kernel failed"); !s.empty()) return reply_error(s);
  float ms = 0;
  m_cu.cuEventElapsedTime(&ms, m_start, m_stop);
  if (auto s = download_arena(); !s.empty()) return reply_error(s);
  return {{"ok", true}, {"ns", {std::llround(double(ms) * 1e6)}}};
}

std::string GpuRunner::ensure_flush_buffer(size_t bytes) {
  size_t flush = std::max(bytes, size_t(2) * size_t(m_l2));
  if (flush <= m_flush_bytes) return {};
  if (m_flush) m_cu.cuMemFree(m_flush);
  m_flush = 0;
  m_flush_bytes = 0;
  if (auto s = check(m_cu.cuMemAlloc(&m_flush, flush), "allocating the L2 flush buffer"); !s.empty()) return s;
  m_flush_bytes = flush;
  m_cu.cuMemsetD8(m_flush, 0, m_flush_bytes);  // zeros: kwb_l2_clean's XOR never hits its sink pattern
  if (!m_sink && check(m_cu.cuMemAlloc(&m_sink, 64), "allocating the flush sink").empty())
    m_cu.cuMemsetD8(m_sink, 0, 64);
  return {};
}

nlohmann::json GpuRunner::time(const nlohmann::json& cmd) {
  if (m_separate_mode) return reply_error("a session of tensors in separate allocations (a sanitizer's) is never timed");
  if (auto s = prepare_args(); !s.empty()) return reply_error(s);
  int calls = cmd.at("calls").get<int>();
  if (auto s = ensure_flush_buffer(cmd.value("flush_bytes", size_t(0))); !s.empty()) return reply_error(s);
  std::string error;
  if (!load_helpers(error)) return reply_error(error);
  if (m_overhead_ns < 0 || m_overhead_by_cupti != (m_use_cupti && !m_launcher)) measure_overhead();
  // The inputs (and armed guards) the parent prepared, once; outputs are re-poisoned per sample.
  // "upload": false when the parent's arena has not changed since the last upload (the device
  // already holds the same inputs and guards; whatever a candidate did to them stays visible to
  // the next fetch).
  if (cmd.value("upload", true))
    if (auto s = check(m_cu.cuMemcpyHtoD(m_arena, m_host, m_mapped), "copying the arena to the device"); !s.empty())
      return reply_error(s);
  if (cmd.value("paced", false)) {  // cuda-launcher: the evaluator releases and times each sample
    if (!m_launcher || m_go_fd < 0) return reply_error("paced timing needs a cuda-launcher session with GO,DONE");
    return {{"ok", true}, {"paced", true}};
  }
  std::vector<int64_t> ns;
  ns.reserve(size_t(calls));
  // Not corrected for the empty kernel's time (measure_overhead, reported by stats): subtracting
  // the events' window undershot Nsight Compute by up to 4 % on the H200 (docs/benchmarks/h200.md).
  if (auto s = m_launcher ? time_one_by_one(calls, ns) : time_queued(calls, ns); !s.empty()) return reply_error(s);
  if (auto s = check(m_cu.cuCtxSynchronize(), "[fault] the kernel failed"); !s.empty()) return reply_error(s);
  // The last sample's outputs, guards and inputs go back for verification (docs/evaluation.md
  // "Anti-cheat rules", rule 4), unless the parent does not verify this round ("download": false;
  // it fetches later).
  if (cmd.value("download", true))
    if (auto s = check(m_cu.cuMemcpyDtoH(m_host, m_arena, m_mapped), "copying the arena back"); !s.empty())
      return reply_error(s);
  return {{"ok", true}, {"ns", ns}};
}

// The arena as the last call left it, for verification after rounds that were not downloaded.
nlohmann::json GpuRunner::fetch() {
  if (!m_host) return reply_error("fetch before map");
  if (auto s = check(m_cu.cuCtxSynchronize(), "[fault] the kernel failed"); !s.empty()) return reply_error(s);
  if (auto s = download_arena(); !s.empty()) return reply_error(s);
  return {{"ok", true}};
}

nlohmann::json GpuRunner::clock(const nlohmann::json& cmd) {
  std::string kind = cmd.value("kind", std::string("events")), error;
  m_use_cupti = kind == "cupti" && m_cupti.open(error);
  nlohmann::json j = {{"ok", true}, {"clock", m_use_cupti ? "cupti" : "events"}};
  if (kind == "cupti" && !m_use_cupti) j["reason"] = error;
  return j;
}

void GpuRunner::reset_persisting_l2() {
  if (m_launcher) {
    // A launcher's host code can set an access-policy window on the runner's stream and raise the
    // L2 set-aside for persisting lines; both would outlive the call. Cleared first, so that the
    // reset below is not undone by the next launch.
    if (m_cu.cuStreamSetAttribute) {
      CUstreamAttrValue none{};
      none.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_NORMAL;
      none.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_NORMAL;
      m_cu.cuStreamSetAttribute(m_stream, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &none);
    }
    size_t set_aside = 0;
    if (m_l2_persisting_bytes == 0 &&
        m_cu.cuCtxGetLimit(&set_aside, CU_LIMIT_PERSISTING_L2_CACHE_SIZE) == CUDA_SUCCESS && set_aside != 0)
      m_cu.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0);
  }
  m_cu.cuCtxResetPersistingL2Cache();
}

std::string GpuRunner::flush_l2(bool reset_persisting) {
  if (reset_persisting) reset_persisting_l2();
  if (!m_l2_clean)  // helper missing (an emulated driver): a memset still evicts, leaving dirty lines
    return check(m_cu.cuMemsetD8Async(m_flush, 0, m_flush_bytes, m_stream), "flushing L2");
  unsigned long long words = m_flush_bytes / 16;
  void* args[] = {&m_flush, &words, &m_sink};
  return check(m_cu.cuLaunchKernel(m_l2_clean, unsigned(m_sms) * 4, 1, 1, 512, 1, 1, 0, m_stream, args, nullptr),
               "flushing L2");
}

// What the sample clock reads for an empty kernel after an L2 flush: the events' window (launch
// latency included) or CUPTI's kernel duration.
void GpuRunner::measure_overhead() {
  m_overhead_ns = 0;
  m_overhead_by_cupti = m_use_cupti && !m_launcher;
  if (!m_noop) return;
  const std::vector<std::string> noop = {"kwb_noop"};
  std::vector<float> ms;
  for (int i = 0; i < 31; ++i) {
    if (!flush_l2(reset_persisting_each_sample()).empty()) return;
    m_cu.cuEventRecord(m_start, m_stream);
    if (m_cu.cuLaunchKernel(m_noop, 1, 1, 1, 32, 1, 1, 0, m_stream, nullptr, nullptr) != CUDA_SUCCESS) return;
    m_cu.cuEventRecord(m_stop, m_stream);
    if (m_cu.cuEventSynchronize(m_stop) != CUDA_SUCCESS) return;
    float t = 0;
    m_cu.cuEventElapsedTime(&t, m_start, m_stop);
    int recorded = 0;
    if (m_overhead_by_cupti)
      if (int64_t span = m_cupti.take(noop, recorded); recorded == 1 && span > 0) t = float(double(span) * 1e-6);
    if (i > 0) ms.push_back(t);  // the first is a warm-up
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  m_overhead_ns = double(ms[ms.size() / 2]) * 1e6;
}

nlohmann::json GpuRunner::stats() {
  nlohmann::json j = {{"ok", true},
                      {"launch_overhead_ns", m_overhead_ns < 0 ? 0.0 : m_overhead_ns},
                      {"cupti_samples", m_cupti_samples},
                      {"event_samples", m_event_samples},
                      {"cupti_short_batches", m_cupti_short_batches},
                      {"cupti_short_detail", m_cupti_short_detail},
                      {"discarded", m_discarded},
                      {"throttled_kept", m_throttled_kept},
                      {"sm_clock_min_mhz", m_clock_min},
                      {"sm_clock_max_mhz", m_clock_max},
                      {"max_sm_clock_mhz", m_max_clock},
                      {"nvml", m_nvml.ready()}};
  m_discarded = m_throttled_kept = 0;
  m_cupti_samples = m_event_samples = m_cupti_short_batches = 0;
  m_cupti_short_detail.clear();
  m_clock_min = m_clock_max = 0;
  return j;
}

nlohmann::json GpuRunner::calibrate(const nlohmann::json& cmd) {
  std::string error;
  if (!init(error)) return reply_error("[no_device] " + error);
  if (!load_helpers(error) || !m_fma) return reply_error(error.empty() ? "helper kernel kwb_fma_peak missing" : error);
  size_t free_bytes = 0, total = 0;
  m_cu.cuMemGetInfo(&free_bytes, &total);
  size_t bytes = std::min(cmd.value("copy_bytes", size_t(1) << 30), free_bytes / 4);
  CUdeviceptr a = 0, b = 0;
  if (auto s = check(m_cu.cuMemAlloc(&a, bytes), "calibration buffer"); !s.empty()) return reply_error(s);
  if (auto s = check(m_cu.cuMemAlloc(&b, bytes), "calibration buffer"); !s.empty()) {
    m_cu.cuMemFree(a);
    return reply_error(s);
  }
  m_cu.cuMemsetD8(a, 1, bytes);
  float best_copy = 0;
  for (int rep = 0; rep < 11; ++rep) {  // the first is a warm-up
    m_cu.cuEventRecord(m_start, m_stream);
    m_cu.cuMemcpyDtoDAsync(b, a, bytes, m_stream);
    m_cu.cuEventRecord(m_stop, m_stream);
    m_cu.cuEventSynchronize(m_stop);
    float ms = 0;
    m_cu.cuEventElapsedTime(&ms, m_start, m_stop);
    if (rep > 0 && ms > 0 && (best_copy == 0 || ms < best_copy)) best_copy = ms;
  }
  unsigned grid = unsigned(m_sms) * 8, block = 256;
  int iters = cmd.value("fma_iters", 2048);
  float seed = 1.0f;
  void* args[] = {&b, &iters, &seed};
  float best_fma = 0;
  for (int rep = 0; rep < 6; ++rep) {
    m_cu.cuEventRecord(m_start, m_stream);
    m_cu.cuLaunchKernel(m_fma, grid, 1, 1, block, 1, 1, 0, m_stream, args, nullptr);
    m_cu.cuEventRecord(m_stop, m_stream);
    if (auto s = check(m_cu.cuEventSynchronize(m_stop), "FMA calibration kernel"); !s.empty()) {
      m_cu.cuMemFree(a);
      m_cu.cuMemFree(b);
      return reply_error(s);
    }
    float ms = 0;
    m_cu.cuEventElapsedTime(&ms, m_start, m_stop);
    if (rep > 0 && ms > 0 && (best_fma == 0 || ms < best_fma)) best_fma = ms;
  }
  m_cu.cuMemFree(a);
  m_cu.cuMemFree(b);
  double flops = double(grid) * block * double(iters) * 2 * 8 * 16;
  return {{"ok", true},
          {"copy_bytes", bytes},
          {"copy_bytes_per_s", best_copy > 0 ? 2.0 * double(bytes) / (best_copy * 1e-3) : 0.0},
          {"fma_flops", flops},
          {"fma_flops_per_s", best_fma > 0 ? flops / (best_fma * 1e-3) : 0.0},
          {"sm_clock_mhz", m_nvml.ready() ? m_nvml.sm_clock_mhz() : 0u}};
}

}  // namespace kwb::gpu
