#pragma once
// The trusted side of a kwb-runner session: starts the runner in the sandbox's run profile with
// the shared arena and two pipes, sends commands and turns every way the runner can fail
// (crash, hang, exit, garbage on the control pipe) into a verdict status with a reason.
//
// Nothing the runner says is trusted (issue 15 #12): every reply is type-checked and must carry
// the number of the command it answers (runner_client_reply.hpp). A CPU candidate shares the
// runner's process, so CPU timings are measured here (runner_client_timing.cpp): this side
// poisons the outputs and flushes the caches, then releases each timed call itself and takes
// both timestamps, and the kernel's account of the runner's CPU time says whether the candidate
// worked outside the calls it was timed for. docs/security.md has the design and what is left.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/verdict.hpp"
#include "eval/arena.hpp"
#include "eval/device_gate.hpp"

namespace kwb::sandbox {
class Process;
}

namespace kwb::eval {

struct RunnerFailure {
  core::Status status = core::Status::crashed;
  std::string reason;
};
template <class T>
using RunnerResult = std::expected<T, RunnerFailure>;

struct RunnerConfig {
  std::filesystem::path runner;   // host path of kwb-runner (bound read-only at /kwb/kwb-runner)
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path job_dir;  // holds candidate.so
  int threads = 1;
  int command_timeout_ms = 10000;  // per call / timing batch
  int64_t memory_bytes = 0;        // address-space limit beyond the arena (0 = default)
  bool gpu = false;                // kwb-gpu-runner: pass the NVIDIA devices through (Profile.gpu)
  int gpu_minor = -1;              // with gpu: only /dev/nvidia<minor> (Profile.gpu_minor); -1 = all
  std::vector<std::pair<std::string, std::string>> env;  // added to the sandbox's environment
  int cpu_seconds = 0;             // RLIMIT_CPU over the session (0 = the run profile's)
  std::vector<std::pair<std::filesystem::path, std::string>> binds;  // extra read-only (host, inside)
  std::string who = "the candidate";  // what the runner runs, as failure reasons name it
  // kwb-runner: the linear address it maps the arena at (0: wherever its kernel puts it), and
  // whether, with one thread, it runs each timing batch pinned to one CPU with the thread that
  // times it. A timed CPU runner gets both (eval/cpu_placement.hpp: the same code read 0.74-1.25x
  // against itself in another runner process without them).
  uintptr_t arena_address = 0;
  bool pin_while_timed = false;
  // With gpu: the GPU's gate (eval/device_gate.hpp), held by every command's round trip; null:
  // nothing else in the process shares the device.
  std::shared_ptr<DeviceGate> gate;
  // A tool that wraps the runner inside the sandbox (Nsight Compute, compute-sanitizer:
  // eval/tool_pass.hpp): its argv before the runner's own; the tool starts the runner as its child,
  // so the session is given the ordinary seccomp filter (new processes allowed), room for the
  // tool's processes and a writable /job for its report. Empty: the runner runs alone.
  std::vector<std::string> tool_argv;
};

class RunnerSession {
 public:
  static util::Result<std::unique_ptr<RunnerSession>> start(const RunnerConfig& cfg, const SharedArena& arena);
  ~RunnerSession();

  RunnerResult<void> load(const std::string& so_inside, const std::string& entry);
  // `scalars`: the spec's floating-point scalars, passed as doubles after the params (sent only
  // when there are some, so a runner of an older protocol sees the same command as before).
  RunnerResult<void> map(const SharedArena& arena, const std::vector<TensorSlot>& slots,
                         const std::vector<int64_t>& params, const std::vector<double>& scalars = {});
  RunnerResult<int64_t> call(const char* what = "a call of the kernel");
  // kwb-gpu-runner copies the arena to the device before the batch unless `upload` is false (the
  // arena is unchanged since the last upload) and back after it unless `download` is false (the
  // batch is not verified; fetch() brings the last call's arena back later). kwb-runner works on
  // the shared arena itself and ignores both.
  struct Copies {
    bool upload = true, download = true;
  };
  RunnerResult<std::vector<int64_t>> time(int calls, size_t flush_bytes, int timeout_ms, Copies copies);
  RunnerResult<std::vector<int64_t>> time(int calls, size_t flush_bytes, int timeout_ms) {
    return time(calls, flush_bytes, timeout_ms, Copies{});
  }
  // A backend-specific command (kwb-gpu-runner: device, load, dims, stats, calibrate); the reply
  // when it says ok, else a failure with status error and the runner's message.
  // For kwb-runner, "stats" answers this side's own count of retaken samples.
  RunnerResult<nlohmann::json> command(const nlohmann::json& cmd, int timeout_ms, const char* what);
  // The runner's stderr so far is only available once it has stopped; this stops it.
  std::string finish();
  // Kills the sandbox at once (safe from another thread); pending requests then fail.
  void kill();
  // Stops / resumes every process of the runner's sandbox (sandbox::Process::freeze).
  util::Result<void> freeze();
  void thaw();
  // Wall time spent waiting for the runner's replies so far (its commands: copies, launches,
  // timing batches), so a verdict can tell the runner's share from the trusted side's checking.
  double busy_ms() const { return m_busy_ms; }
  // The same split by kind of command: "timing" (timing batches and the fetch after them),
  // "calls" (single checked calls) and "setup" (everything else: map, load, dims, stats...).
  const std::map<std::string, double>& busy_by_kind() const { return m_busy_by_kind; }
  // Wall time spent waiting for the GPU's gate (another session's command on the same GPU), not
  // counted in busy_ms.
  double gate_wait_ms() const { return m_gate_wait_ms; }
  // From now on every command holds `gate` (RunnerConfig::gate).
  void set_gate(std::shared_ptr<DeviceGate> gate) { m_cfg.gate = std::move(gate); }
  // kwb-runner's CPU time so far, all its threads (the kernel's account, not the runner's word);
  // -1 for the GPU runner or when unknown.
  int64_t runner_cpu_time_ns() { return runner_cpu_ns(); }
  // kwb-runner's process id as this side sees it (for /proc and CPU placement); -1 for the GPU
  // runner or when unknown.
  pid_t runner_pid() { return runner_clock() ? m_runner_pid : -1; }
  // With pin_while_timed: the next timing batch has placement key `key` (cpu_for_batch: the same
  // CPU as the previous batch of this thread with that key). The decide stage gives both sides'
  // k-th blocks one key: one core per block pair. Later batches: 0 again.
  void set_placement_key(uint64_t key) { m_placement_key = key; }
  // Why the runner could not be pinned (then it is not pinned again); empty while it could.
  const std::string& placement_problem() const { return m_placement_problem; }
  // CPU timing: calls of this session that used more CPU than the judged excess around their
  // timed window (each charged to its sample; a second one, at least 1 in 50 calls, is a violation).
  int excess_strikes() const { return m_excess_strikes; }
  // Starts both counts again (a pre-started session's start-up is not the evaluation's).
  void reset_busy() {
    m_busy_ms = 0;
    m_gate_wait_ms = 0;
    m_busy_by_kind.clear();
  }

 private:
  RunnerSession() = default;
  RunnerResult<nlohmann::json> request(const nlohmann::json& cmd, int timeout_ms, const char* what);
  // The next reply to the command last sent (request() without the write): checked, and a
  // failure when it says ok=false.
  RunnerResult<nlohmann::json> read_reply(int timeout_ms, const char* what);
  RunnerFailure classify_exit(const char* what);
  RunnerFailure violation(const std::string& reason);  // kills the runner
  RunnerFailure timeout_failure(const char* what, int timeout_ms);
  // CPU timing measured by this side (runner_client_timing.cpp).
  RunnerResult<std::vector<int64_t>> paced_time(int calls, size_t flush_bytes, int timeout_ms);
  // cuda-launcher samples bracketed by this side's clock (runner_client_gpu_paced.cpp).
  RunnerResult<std::vector<int64_t>> gpu_paced_time(int calls, size_t flush_bytes, int timeout_ms, Copies copies);
  int read_done(void* data, size_t bytes, std::chrono::steady_clock::time_point deadline);
  void prepare_call(size_t flush_bytes);  // poison outputs, evict the tensors and the caches
  bool runner_clock();                    // finds the runner's CPU clock; false when it cannot
  int64_t runner_cpu_ns();                // the runner process's CPU time (all its threads), -1 unknown
  void remap(const SharedArena& arena, const std::vector<TensorSlot>& slots);
  // pin_while_timed: pins the runner to this batch's CPU and returns it (-1: not pinned).
  int place_for_batch();

  RunnerConfig m_cfg;
  std::unique_ptr<sandbox::Process> m_process;
  int m_cmd_w = -1, m_reply_r = -1;
  int m_go_w = -1, m_done_r = -1;  // paced timing (kwb-runner; kwb-gpu-runner for cuda-launchers)
  bool m_gpu_launcher = false;     // a cuda-launcher was loaded into this GPU session
  int m_raised_to_window = 0;      // launcher samples raised to this side's window (forged or slow)
  uint64_t m_seq = 0;              // number of the last command sent
  // This side's own mapping of the arena, and the tensors in it (offset, bytes).
  char* m_view = nullptr;
  size_t m_view_bytes = 0;
  std::vector<std::pair<size_t, size_t>> m_outputs, m_tensors;
  std::vector<char> m_flush;
  pid_t m_runner_pid = -1;
  clockid_t m_runner_clockid{};
  int64_t m_idle_from = -1;        // the runner's CPU time when it was last left idle
  int m_discarded = 0;             // samples retaken since the last stats (preempted)
  int m_cycles_judged = 0;         // CPU timing: calls whose CPU time was checked, this session
  int m_excess_strikes = 0;        // ... and that used more than the judged excess (charged)
  int m_process_limit = 0;         // the run profile's processes + threads
  uint64_t m_placement_key = 0;    // of the next timing batch (cpu_placement.hpp)
  std::string m_placement_problem;
  std::unique_ptr<class ReplyReader> m_reader;
  std::string m_stderr;
  double m_busy_ms = 0;
  double m_gate_wait_ms = 0;
  // Holds the GPU's gate (when there is one) from its construction; the wait goes to m_gate_wait_ms.
  std::unique_lock<DeviceGate> hold_gate();
  std::map<std::string, double> m_busy_by_kind;
};

}  // namespace kwb::eval
