#pragma once
// One side of an interleaved comparison (paired_timing.hpp): an accepted evaluation's runner,
// kept open after its benchmark stage, that times blocks of cold calls on a bench workload's
// inputs, verifies what they leave, and can be frozen while the other side is timed.
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/reference.hpp"
#include "core/spec.hpp"
#include "eval/harness.hpp"

namespace kwb::eval {

struct TimingSubjectConfig {
  std::string who;            // "the candidate" | "the incumbent": named in failures
  size_t flush_bytes = 0;     // the same flush as the benchmark stage
  bool device_copies = false; // kwb-gpu-runner: the device holds the arena (fetch before verifying)
  int timeout_ms = 10000;     // per block
  // Freeze this side's sandbox while the other side is timed. GPU runners of cuda-launchers: yes
  // (their host code could keep working, or queue device work, during the other side's block);
  // of the cuda form: no (the runner is trusted host code that runs the candidate's kernels only
  // inside a command, and every command holds the GPU's gate). kwb-runner
  // (cpu): no need, and SIGSTOP/SIGCONT would read as work of its own: the trusted CPU timing
  // already charges every CPU nanosecond the runner's process spends between two commands
  // (docs/security.md "Runner replies and CPU timings"), so work left running into the other
  // side's block fails the candidate's next block as a sandbox_violation.
  bool freeze = true;
  // Makes the runner ready for a workload (CUDA: load the config that won it, send its launch
  // dimensions); nothing or why it failed.
  std::function<std::optional<CheckFailure>(const core::Workload&)> setup;
  // The reference that computes a workload's expected outputs (a spec's GPU reference judges some
  // bench workloads); empty: the one given to the constructor.
  std::function<Reference*(const core::Workload&)> reference_for;
};

class TimingSubject {
 public:
  TimingSubject(const core::Spec& spec, const core::Variant& variant, Reference& reference, SharedArena& arena,
                RunnerSession& runner, TimingSubjectConfig cfg);
  ~TimingSubject();
  TimingSubject(const TimingSubject&) = delete;
  TimingSubject& operator=(const TimingSubject&) = delete;

  // Lays out `w`, loads the inputs of `input_seed` (both sides of a comparison get the same
  // seed, so the same inputs), calls once and verifies.
  std::optional<CheckFailure> begin(const core::Workload& w, uint64_t input_seed, uint64_t guard_seed);
  // Lays out `w` with the inputs (and expected outputs) `from` holds now, the other side's
  // harness: the same values without generating them again; calls once and verifies.
  std::optional<CheckFailure> begin_from(const core::Workload& w, const WorkloadHarness& from, uint64_t guard_seed);
  // The benchmark stage's own harness of `w`, its inputs loaded and verified (the candidate's
  // side in its benchmark stage: its bench timing is the comparison's): not laid out again.
  void attach(const core::Workload& w, WorkloadHarness& harness);
  // New inputs of the other side (its fresh round), without expected outputs: the next block
  // times on them; verify() needs a begin/begin_from again.
  void adopt(const WorkloadHarness& from);
  // The attached harness loaded new inputs (its fresh round): the next block uploads them.
  void inputs_changed() { m_uploaded = false; }
  RunnerSession& runner() { return m_runner; }
  // The harness of the workload begun (null before).
  WorkloadHarness* harness() { return m_attached ? m_attached : m_harness.get(); }
  // Times `calls` cold calls (flush and poison before each, untimed); nanoseconds per call. The
  // k-th block since begin/begin_from/attach gets the placement key of k (RunnerSession::
  // set_placement_key): each side times one block per block pair, so a pair shares its core.
  std::expected<std::vector<double>, CheckFailure> block(int calls);
  // Verifies the outputs the last block left.
  std::optional<CheckFailure> verify(const std::string& when);
  util::Result<void> freeze() { return m_cfg.freeze ? m_runner.freeze() : util::Result<void>{}; }
  void thaw() {
    if (m_cfg.freeze) m_runner.thaw();
  }
  const std::string& who() const { return m_cfg.who; }

 private:
  // A harness of `w` laid out in this side's arena, the runner made ready for it.
  std::optional<CheckFailure> lay_out(const core::Workload& w);
  const core::Spec& m_spec;
  const core::Variant& m_variant;
  Reference& m_reference;
  SharedArena& m_arena;
  RunnerSession& m_runner;
  TimingSubjectConfig m_cfg;
  core::Workload m_workload;       // the harness keeps references to these two
  core::WorkloadResult m_result;
  std::unique_ptr<WorkloadHarness> m_harness;
  WorkloadHarness* m_attached = nullptr;  // attach(): not owned
  bool m_uploaded = false;
  uint64_t m_blocks = 0;  // blocks timed since begin/begin_from/attach
};

}  // namespace kwb::eval
