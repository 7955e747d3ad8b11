#pragma once
// The CPU backend's Evaluation: compile in the sandbox (compile profile), then validate every
// test workload under every distribution and every bench workload on fresh secret seeds, then
// time the bench workloads, all in one sandboxed kwb-runner session. What it shares with the CUDA
// backend is BasicEvaluation's (basic_evaluation.hpp).
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "build/cpu_toolchain.hpp"
#include "eval/arena.hpp"
#include "eval/basic_evaluation.hpp"
#include "eval/cpu_device.hpp"
#include "eval/machine_state.hpp"
#include "eval/runner_client.hpp"

namespace kwb::eval {

class CpuEvaluation : public BasicEvaluation {
 public:
  CpuEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand, EvalOptions opt,
                CpuDevice device, ProgressFn progress = {});
  ~CpuEvaluation() override;

  bool analyze() override;
  bool compile() override;
  bool validate() override;
  bool benchmark() override;
  std::string device_key() const override { return m_device.id; }
  void cancel() override;

 private:
  bool start_runner();
  bool run_bench();  // cpu_workloads.cpp
  void add_decide_notes() override;
  std::string median_text(double median_ns) const override;
  void configure_timing(TimingSubjectConfig& cfg) override;

  CpuDevice m_device;
  std::optional<build::CpuToolchain> m_toolchain;
  std::filesystem::path m_job;
  std::string m_object;  // shared object path inside the sandbox
  // The runner session (BasicEvaluation::m_arena and m_runner point to these once it started).
  std::optional<SharedArena> m_own_arena;
  std::mutex m_runner_mutex;  // m_own_runner is killed from other threads by cancel()
  bool m_cancelled = false;
  std::unique_ptr<RunnerSession> m_own_runner;
  MachineWatch m_watch;  // sampled around every bench workload's timing
};

}  // namespace kwb::eval
