#pragma once
// The CPU backend's Evaluation: compile in the sandbox (compile profile), then validate every
// test workload under every distribution and every bench workload on fresh secret seeds, then
// time the bench workloads, all in one sandboxed kwb-runner session.
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include "build/cpu_toolchain.hpp"
#include "eval/arena.hpp"
#include "eval/cpu_device.hpp"
#include "eval/evaluation.hpp"
#include "eval/machine_state.hpp"
#include "eval/runner_client.hpp"
#include "eval/seeds.hpp"
#include "eval/test_workloads.hpp"

namespace kwb::eval {

class CpuEvaluation : public Evaluation {
 public:
  CpuEvaluation(const core::Spec& spec, ReferenceOpener reference, core::Candidate cand, EvalOptions opt,
                CpuDevice device, ProgressFn progress = {});
  ~CpuEvaluation() override;

  bool analyze() override;
  bool compile() override;
  bool validate() override;
  bool benchmark() override;
  bool decide() override;
  core::Verdict verdict() override;
  std::string device_key() const override { return m_device.id; }
  void cancel() override;
  std::unique_ptr<TimingSubject> timing_subject(const std::string& who) override;
  const core::Spec* spec() const override { return &m_spec; }
  const core::Variant* variant() const override { return m_variant; }
  void report(const StageEvent& e) override;

 private:
  bool fail(core::Status s, std::string reason);
  bool start_runner();
  bool run_workloads(bool bench);
  void emit(Stage s, bool finished, std::string detail = {});

  const core::Spec& m_spec;
  ReferenceOpener m_open_reference;
  std::shared_ptr<Reference> m_reference;  // opened by analyze()
  core::Candidate m_cand;
  EvalOptions m_opt;
  CpuDevice m_device;
  ProgressFn m_progress;
  const core::Variant* m_variant = nullptr;
  std::vector<core::Workload> m_test_workloads;  // published, then drawn for this evaluation (analyze())
  std::optional<build::CpuToolchain> m_toolchain;
  std::filesystem::path m_job;
  std::string m_object;  // shared object path inside the sandbox
  std::optional<SharedArena> m_arena;
  std::mutex m_runner_mutex;  // m_runner is killed from other threads by cancel()
  bool m_cancelled = false;
  std::unique_ptr<RunnerSession> m_runner;
  SeedSource m_seeds;
  MachineWatch m_watch;  // sampled around every bench workload's timing
  core::Verdict m_verdict;
  bool m_decided = false;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace kwb::eval
