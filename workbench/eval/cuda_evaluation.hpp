#pragma once
// What the `cuda` and `cuda-launcher` backends' Evaluations share (docs/cuda.md): after the form's
// own analyze and compile stages (cuda_plan_evaluation.hpp: a launch plan and NVRTC;
// cuda_launcher_evaluation.hpp: a host entry built by nvcc), they validate and time every tunable
// config in one sandboxed kwb-gpu-runner session on the same shared arena, harness, comparator
// and timing loop as the CPU backend (basic_evaluation.hpp), with the spec's GPU reference where
// it has one. Without a GPU the compile still runs and the verdict is `no_device`.
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "build/nvrtc_compiler.hpp"
#include "core/launch_plan.hpp"
#include "eval/arena.hpp"
#include "eval/cuda_device.hpp"
#include "eval/cuda_session.hpp"
#include "eval/basic_evaluation.hpp"
#include "eval/benchmark.hpp"
#include "eval/config_choice.hpp"
#include "eval/gpu_reference.hpp"
#include "eval/harness.hpp"
#include "eval/runner_client.hpp"
#include "eval/tool_pass.hpp"

namespace kwb::eval {

struct CudaOptions {
  std::filesystem::path gpu_runner;    // kwb-gpu-runner
  std::filesystem::path nvrtc_worker;  // kwb-nvrtc-worker
  std::string gpu_arch;                // NVRTC target; empty: the device's (sm_90a without a device)
  int compile_workers = 4;             // NVRTC workers compiling configs in parallel
  std::filesystem::path driver;        // libcuda to load (KWB_CUDA_DRIVER); empty: the usual places
  std::string nvcc;                    // cuda-launcher: nvcc to use; empty: the toolkit's (NvccToolchain)
  // SASS (build/disassembler.hpp): "" for the toolkit's nvdisasm/cuobjdump, "off" for none, or a path.
  std::string disassembler;
  std::string clock = "cupti";         // "cupti" | "events" (docs/cuda.md "Timing")
};

// What one run under a tool came to (CudaEvaluation::run_under_tool).
struct ToolRun {
  bool ran = false;                  // the tool ran and left its report
  std::string reason;                // why not
  std::string report;                // the report's text
  std::optional<CheckFailure> call;  // how the candidate's call failed under the tool, if it did
  double ms = 0;                     // the whole pass: sandbox, tool, driver, the call
};

class CudaEvaluation : public BasicEvaluation {
 public:
  ~CudaEvaluation() override;

  bool compile() override;
  bool validate() override;
  bool benchmark() override;
  std::string device_key() const override { return m_device.present ? m_device.lane_class() : "cuda:none"; }
  bool shares_device() const override { return m_device.present && !host_code_in_runner(); }
  void bind_lane(const DeviceLane& lane) override;
  void bind_like(const Evaluation& other) override;
  // Every config on every test workload under memcheck, racecheck and synccheck (issue 34 point 3:
  // clean before promotion; cuda_sanitizer_pass.cpp). None without a device.
  std::optional<core::SanitizerOutcome> sanitize_for_promotion() override;
  std::string bound_device() const override {
    return m_device.present && !m_device.any_of_class ? m_device.key : device_key();
  }
  // The GPU it runs on (any_of_class until a lane binds it).
  const CudaDevice& device() const { return m_device; }
  void prefer_configs(const std::map<std::string, std::map<std::string, int64_t>>& params_by_workload) override {
    m_config_hints = params_by_workload;
  }

  // Uses an already started runner session (from device discovery, or pre-started by the
  // daemon) instead of starting one in validate().
  void adopt_session(std::unique_ptr<GpuSession> session) { m_session = std::move(session); }

 protected:
  // `compiler` may be shared (the daemon keeps one warm pool); null: this evaluation makes its own.
  // `backend`: the form's (cuda or cuda_launcher).
  CudaEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand, EvalOptions opt,
                 CudaOptions cuda, CudaDevice device, ProgressFn progress,
                 std::shared_ptr<build::NvrtcCompiler> compiler, core::Backend backend);

  // The form's part. Its compile stage (fills m_cubin_data per config, the start and end events
  // included); false: the verdict is decided.
  virtual bool compile_candidate() = 0;
  // The name config `c`'s compiled module has in the session's job folder.
  virtual std::string module_file(size_t c) const = 0;
  // Makes config `c` the runner's: its module, at `module` in the sandbox, loaded; false: the
  // verdict is decided.
  virtual bool load_config(size_t c, const std::string& module) = 0;
  // Whether the candidate's host code runs in the runner, between commands too (a launcher): the
  // lane is then the evaluation's alone and a timing subject freezes it (timing_subject.hpp).
  virtual bool host_code_in_runner() const { return false; }
  // Whether the session may time with CUPTI (CudaOptions::clock); else CUDA events.
  virtual bool may_time_with_cupti() const { return true; }

  std::string arch() const;
  // Run by validate() once the session is up, before the tests: a form whose space is larger
  // than the grid searches it here and goes on with its finalists (cuda_plan_search.cpp).
  virtual bool search_tunable_space() { return true; }
  // Writes config `c`'s module (`data`) into the session's job folder as module_file(c).
  bool write_module(size_t c, const std::string& data);
  // After a search replaced m_configs and m_cubin_data: their modules rewritten, none loaded.
  bool reset_modules();
  bool use_config(size_t config) override;  // load_config() unless the runner holds it already
  // One call of a config on a workload (test workload: placed at its spec's alignment as
  // validation placed it; bench: aligned).
  struct ToolCall {
    const core::Workload* workload = nullptr;
    size_t config = 0;
    bool bench = false;
  };
  // `calls` in order in one session of its own that `tool` wraps (stopping at the first that
  // fails); the verdict and the evaluation's session are left as they were (cuda_tool_pass.cpp).
  ToolRun run_under_tool(const ToolInvocation& tool, const std::vector<ToolCall>& calls);
  // The profile pass (cuda_profile_pass.cpp): each timed bench workload's chosen config under
  // Nsight Compute; sets verdict.profile and the workloads' feedback.profile.
  void profile_bench_workloads();
  // The sanitizer pass (cuda_sanitizer_pass.cpp): after a crash, a wrong result or a hang, the
  // first failing workload and config under compute-sanitizer; sets verdict.sanitizer and adds
  // its reports to diagnostics[]. Nothing when the verdict is another.
  void sanitize_first_failure();
  // `tools` in turn, each wrapping one session that makes `calls`; each command may take
  // `timeout_ms`. The outcome's workload and config are the caller's to fill.
  core::SanitizerOutcome run_sanitizers(const std::vector<std::string>& tools, const std::vector<ToolCall>& calls,
                                        int timeout_ms);
  std::shared_ptr<build::NvrtcCompiler> nvrtc();  // m_compiler, made on first use

  CudaOptions m_cuda;
  CudaDevice m_device;
  std::shared_ptr<build::NvrtcCompiler> m_compiler;  // see nvrtc()
  std::vector<core::TuneConfig> m_configs;
  std::vector<std::string> m_cubin_data;  // per config, from compile() (cuda-launcher: the .so)

 private:
  CheckFailure classify(const CheckFailure& f) const override;  // classify_gpu_failure
  std::string checks_note() const override;
  std::string judged_note() const override;
  std::string median_text(double median_ns) const override;
  void configure_timing(TimingSubjectConfig& cfg) override;
  bool start_runner();
  // The options of a runner session on this evaluation's GPU.
  GpuSessionOptions session_options(const std::string& who) const;
  // The GPU reference's session, on a thread of its own (compile(), or bind_lane() where the
  // GPU was not known at compile time).
  void start_reference_session();
  // BasicEvaluation::run_tests's hooks: the tunable configs, the GPU reference's cross-check.
  size_t config_count() const override { return m_configs.size(); }
  std::string config_label(size_t c) const override;
  void configure_test_harness(WorkloadHarness& h) override;
  bool cross_check_reference(WorkloadHarness& h) override;  // cuda_gpu_reference.cpp
  bool run_bench();
  // CUDA graphs (cuda_graph_check.cpp, docs/cuda.md "CUDA graphs"). Validation: each config's plan
  // captured into a graph on one test workload and replayed, the replay's outputs verified (a graph
  // without a kernel, or that cannot be captured, is refused). Benchmark: a launch-bound bench
  // workload (eager median under k_launch_bound_ns) also timed by graph replay on `h`, the last
  // replay of each round verified; its stats go to `res.time_graph`.
  bool check_graphs();
  bool time_by_graph(const core::Workload& w, WorkloadHarness& h, const BenchmarkConfig& cfg,
                     const StoppingCriterion& criterion, const std::string& label, core::WorkloadResult& res);
  // Several configs: each timed in round-robin blocks on the harness's inputs, the winner chosen
  // (config_choice.hpp); nothing when the verdict was decided meanwhile.
  std::optional<ConfigChoice> choose_config_for(const core::Workload& w, WorkloadHarness& h);
  // The spec's GPU reference (docs/specs.md "GPU references"), where it has a plan for this
  // variant and the device is present: compiled and its session started by compile(), opened by
  // start_runner(), cross-checked on every test workload, then judging the bench workloads it names.
  bool wants_gpu_reference() const;
  bool compile_gpu_reference();
  bool open_gpu_reference();
  // The reference that computes the expected outputs of `w` (a bench workload may be the GPU's).
  Reference& reference_for(const core::Workload& w, bool bench);

  std::string m_reference_cubin;           // the GPU reference for this device (compile_gpu_reference())
  // The GPU reference's session, started by compile() on a thread that lives until the
  // evaluation ends (the sandbox dies with the thread that started it: PR_SET_PDEATHSIG).
  std::future<util::Result<std::unique_ptr<GpuSession>>> m_reference_session;
  std::promise<void> m_reference_thread_release;
  std::thread m_reference_thread;
  std::unique_ptr<GpuReference> m_gpu_reference;  // opened by validate()
  std::vector<std::string> m_cubins;      // per config, path inside the sandbox
  std::optional<size_t> m_loaded;         // config whose module the runner holds
  std::map<std::string, size_t> m_best_config;  // bench workload -> the config that timed fastest
  std::map<std::string, std::map<std::string, int64_t>> m_config_hints;  // prefer_configs()
  std::unique_ptr<GpuSession> m_session;  // BasicEvaluation::m_arena and m_runner are its own
  TrustedTimes m_trusted;  // the harnesses' input generation, reference wait and checks
};

// The evaluation of `cand` in its form: CudaLauncherEvaluation for backend cuda-launcher, else
// CudaPlanEvaluation (cuda_forms.cpp). `compiler` as for CudaEvaluation.
std::unique_ptr<CudaEvaluation> make_cuda_evaluation(const core::Spec& spec, ReferenceOpener reference,
                                                     core::Candidate cand, EvalOptions opt, CudaOptions cuda,
                                                     CudaDevice device, ProgressFn progress = {},
                                                     std::shared_ptr<build::NvrtcCompiler> compiler = nullptr);

}  // namespace kwb::eval
