#pragma once
// kwb-gpu-runner: the trusted host side of `cuda`-form candidates. It speaks kwb-runner's line
// protocol (protocol.hpp: load / map / call / time / quit, plus device / dims / stats /
// calibrate) on the same shared arena: one device allocation mirrors the whole arena at the same
// offsets, so the device's guard zones are the arena's. Candidate code is device code only; the
// runner launches it through the driver API with the dimensions the trusted parent computed.
//
// Error replies carry a tag the parent turns into a verdict status:
//   "[no_device] ..." no usable GPU (no driver, cuInit failed, no device)
//   "[launch] ..."    the candidate cannot be launched as planned (missing kernel, wrong
//                     parameter count, too many threads or too much shared memory)
//   "[fault] ..."     the candidate faulted on the device (illegal address, trap, ...)
//   "[stream] ..."    a cuda-launcher candidate left work running outside the given stream
//   "[graph] ..."     the plan cannot be captured into a CUDA graph, or its graph has no kernel
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu_runner/cuda_api.hpp"
#include "gpu_runner/cupti_clock.hpp"
#include "gpu_runner/nvml_api.hpp"

namespace kwb::gpu {

struct ArenaBuffer {
  size_t offset = 0, bytes = 0;
  bool output = false;
};

struct KernelArg {
  enum class Kind { tensor, param, workspace, scalar };
  Kind kind = Kind::tensor;
  int index = 0;
};

struct Kernel {
  std::string name;
  CUfunction fn = nullptr;
  std::vector<KernelArg> args;
  int max_threads = 1024, static_smem = 0, regs = 0, local_bytes = 0;
};

struct LaunchDims {
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned smem = 0;
};

class GpuRunner {
 public:
  GpuRunner(int shm_fd) : m_shm_fd(shm_fd) {}
  // The identity; {"driver": PATH} (first command only) names the driver library to load and
  // {"ordinal": N} the device among those the process sees (CUDA_VISIBLE_DEVICES; default 0).
  // The reply also lists every visible device ("all": ordinal, pci_bus_id, uuid, name), which
  // device discovery reads from a session that sees them all (docs/architecture.md "Lanes").
  nlohmann::json device(const nlohmann::json& cmd);
  nlohmann::json load(const nlohmann::json& cmd);
  nlohmann::json map(const nlohmann::json& cmd);
  nlohmann::json dims(const nlohmann::json& cmd);
  nlohmann::json call();
  nlohmann::json time(const nlohmann::json& cmd);
  nlohmann::json fetch();
  nlohmann::json clock(const nlohmann::json& cmd);  // {"kind": "events" | "cupti"}
  nlohmann::json stats();
  nlohmann::json calibrate(const nlohmann::json& cmd);
  // CUDA graphs (graph_replay.cpp, docs/cuda.md "CUDA graphs"). `graph`: the plan captured into a
  // graph (a launcher's entry called under capture), refused without a kernel node, then replayed
  // on the arena as uploaded again after the capture (outputs as the parent poisoned them), and the
  // arena copied back for the parent to verify. `graph_time`: {"calls", "flush_bytes"}: samples of
  // the captured plan timed by graph replay (each after the untimed poison, workspace zeroing and
  // L2 flush of prepare_sample), the arena uploaded before and copied back after.
  nlohmann::json graph(const nlohmann::json& cmd);
  nlohmann::json graph_time(const nlohmann::json& cmd);
  // Paced timing (paced_timing.cpp), after `time` acknowledged {"paced":true}: samples released
  // one by one on the GO descriptor until 'e'. `failed`: `error` says why, and the caller sends it
  // as the time command's second reply; `broken`: the handshake is out of step (exit).
  void set_pacing(int go_fd, int done_fd) { m_go_fd = go_fd, m_done_fd = done_fd; }
  enum class Paced { done, failed, broken };
  Paced paced_samples(std::string& error);
  static constexpr int64_t k_paced_throttled = 1, k_paced_failed = 2;  // flags of a DONE message

 private:
  bool init(std::string& error);
  std::string pci_bus_id(CUdevice d) const;
  std::string uuid_of(CUdevice d) const;
  nlohmann::json visible_devices();
  bool load_helpers(std::string& error);
  std::string check(CUresult rc, const std::string& what) const;  // "" on success
  std::string prepare_args();
  std::string launch_plan();            // enqueues every launch on the stream
  std::string dirty_shared_memory();    // poisons every SM's shared memory
  // cuda-launcher (launcher.cpp): the candidate's shared object and host entry.
  nlohmann::json load_launcher(const nlohmann::json& cmd);
  std::string prepare_launcher_args();
  std::string run_launcher();
  // After the stop event: "" or a "[stream]" error; `long_wait_ns` gets the context
  // synchronisation's time when it was long enough to suspect work left on another stream.
  std::string check_no_escape(int64_t* long_wait_ns = nullptr);
  bool throttled(unsigned& clock_mhz);
  // timing_batch.cpp: one timing batch of `calls` samples appended to `ns`; "" or an error.
  std::string prepare_sample();  // poison outputs, zero the workspace, flush L2 (queued)
  // Lines kept in L2 on purpose can outlive the flush between samples (docs/cuda.md "Persisting
  // L2 lines"). Access-policy windows keep lines only in the L2 set aside for them, which init
  // pins at 0 (a launcher's host code could raise it again); evict_last cache policies in the
  // kernel's own code (the compiler reports them: load's "strict_l2") keep lines regardless.
  // Either way each sample then starts with the device idle and persisting lines reset (the
  // reset is not ordered with the stream); otherwise once per batch.
  bool reset_persisting_each_sample() const { return m_launcher || m_strict_l2 || m_l2_persisting_bytes != 0; }
  std::string time_queued(int calls, std::vector<int64_t>& ns);     // cuda form
  std::string time_one_by_one(int calls, std::vector<int64_t>& ns);  // cuda-launcher
  std::string ensure_flush_buffer(size_t bytes);  // at least `bytes` and 2 x L2
  // graph_replay.cpp: the plan captured (global capture mode) and instantiated into `exec`, with
  // its kernel-node count; "" or why not ("[graph] ..." for the candidate's part).
  std::string capture_plan(CUgraphExec& exec, size_t& kernel_nodes);
  std::string time_graph_queued(CUgraphExec exec, int calls, std::vector<int64_t>& ns);
  std::string time_graph_one_by_one(CUgraphExec exec, int calls, std::vector<int64_t>& ns);
  // Start-up work that does not depend on the candidate, done by `device` so that a pre-started
  // session has it behind it: the helper module, the flush buffer, the helpers' first launches
  // (lazy loading) and libcupti.
  std::string warm_up();  // "" or why the device failed it
  // Evicts every line from L2, leaving it clean (untimed); `reset_persisting` first returns
  // persisting lines to normal (a driver call that, made per queued sample, also moved transpose
  // 4096^2's medians by 4 % between processes under CUPTI on the H200: docs/benchmarks/h200.md).
  std::string flush_l2(bool reset_persisting = true);
  // Persisting lines back to normal; for a launcher also the stream's access-policy window
  // emptied and the set-aside taken back to 0 where its host code raised it (docs/cuda.md
  // "Persisting L2 lines"). Acts when called: the device must be idle.
  void reset_persisting_l2();
  void pin_persisting_l2();
  void measure_overhead();  // m_overhead_ns, once per session and clock (after the flush buffer exists)
  void unmap();

  CudaApi m_cu;
  Nvml m_nvml;
  bool m_tried = false, m_ready = false;
  std::string m_init_error, m_nvml_error, m_pci, m_driver;
  CUdevice m_dev = 0;
  int m_ordinal = 0;  // among the visible devices (the device command's "ordinal")
  std::string m_uuid;
  CUcontext m_ctx = nullptr;
  CUstream m_stream = nullptr;
  CUevent m_start = nullptr, m_stop = nullptr;
  std::vector<CUevent> m_batch_events;  // start/stop pairs of a queued batch (grown, never freed)
  int m_sms = 0, m_l2 = 0, m_smem_optin = 0;
  unsigned m_max_clock = 0;

  CUmodule m_module = nullptr, m_helpers = nullptr;
  CUfunction m_dirty = nullptr, m_fma = nullptr, m_l2_clean = nullptr, m_noop = nullptr;
  double m_overhead_ns = -1;  // -1: not measured yet
  bool m_overhead_by_cupti = false;  // which clock measured it
  std::vector<Kernel> m_kernels;
  void* m_so = nullptr;  // cuda-launcher: the candidate's shared object (never unloaded)
  void* m_entry = nullptr;
  bool m_launcher = false;
  int m_escape_streak = 0;  // consecutive checks that waited past k_escape_ns (launcher.cpp)
  std::vector<intptr_t> m_launcher_args;
  std::vector<LaunchDims> m_dims;

  int m_shm_fd;
  int m_go_fd = -1, m_done_fd = -1;  // paced timing's descriptors, -1 = not offered
  char* m_host = nullptr;
  size_t m_mapped = 0;
  bool m_pinned = false;  // the mapping is page-locked for the driver (faster copies)
  std::vector<ArenaBuffer> m_buffers;
  std::vector<int64_t> m_params;
  std::vector<double> m_scalars;  // the spec's scalars (doubles), after the params
  CUdeviceptr m_arena = 0, m_workspace = 0, m_flush = 0, m_sink = 0;
  // Under compute-sanitizer (KWB_GPU_SEPARATE_BUFFERS=1 in the environment, gpu_buffers.cpp):
  // every tensor in a device allocation of its own and exactly its size, so that memcheck sees an
  // access past a tensor's end (inside the one arena it would be an access to the next guard zone).
  // Calls only: such a session is never timed.
  bool m_separate_mode = false;
  std::vector<CUdeviceptr> m_separate;
  CUdeviceptr buffer_ptr(size_t i) const;
  std::string allocate_separate();
  std::string upload_arena();    // the host arena to the device (each tensor, when separate)
  std::string download_arena();  // and back
  size_t m_arena_cap = 0, m_workspace_cap = 0, m_workspace_bytes = 0, m_flush_bytes = 0;
  std::vector<std::vector<uint64_t>> m_arg_values;
  std::vector<std::vector<void*>> m_arg_ptrs;
  bool m_args_dirty = true;

  // The sample clock: CUDA events, or CUPTI timestamps (per sample, events where CUPTI did not
  // record every launch of the plan; for a launcher, the span of all the device work it started).
  CuptiClock m_cupti;
  bool m_use_cupti = false;
  // The L2 set-aside for persisting accesses after init pinned it at 0 (0 too where the device
  // has none; -1 while unknown).
  int64_t m_l2_persisting_bytes = -1;
  bool m_strict_l2 = false;  // the loaded module sets L2 eviction policies (load's "strict_l2")
  int m_cupti_samples = 0, m_event_samples = 0;
  int m_cupti_short_batches = 0;     // batches CUPTI did not record whole (timed by events)
  std::string m_cupti_short_detail;  // the last one's count

  // Per-workload timing statistics, reset by stats().
  int m_discarded = 0, m_throttled_kept = 0;
  unsigned m_clock_min = 0, m_clock_max = 0;
};

nlohmann::json reply_error(const std::string& text);

}  // namespace kwb::gpu
