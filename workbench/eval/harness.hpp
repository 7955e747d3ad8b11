#pragma once
// One workload of one evaluation: lays out the shared arena, loads fresh inputs from a seed,
// computes the trusted reference, runs the candidate and checks everything docs/evaluation.md
// "Correctness checks" lists: outputs against the reference, guard zones, unchanged inputs,
// determinism, stale caches.
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "eval/reference.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "eval/arena.hpp"
#include "eval/compare.hpp"
#include "eval/runner_client.hpp"

namespace kwb::eval {

// Where the trusted side's time goes, summed over the harnesses of one evaluation and reported
// in the verdict's stage_ms (GPU evaluations): input generation and copies into the arena, the
// wait for a reference still running in the background, and the output and input checks.
struct TrustedTimes {
  double inputs_ms = 0;
  double reference_wait_ms = 0;
  double checks_ms = 0;
};

struct CheckFailure {
  core::Status status = core::Status::incorrect;
  std::string reason;
};

class WorkloadHarness {
 public:
  WorkloadHarness(const core::Spec& spec, const core::Variant& variant, Reference& reference,
                  SharedArena& arena, RunnerSession& runner, const core::Workload& workload,
                  core::WorkloadResult& result);
  ~WorkloadHarness();

  // GPU evaluations: the reference runs in a background thread while the runner works, and the
  // next verify waits for it. Not for cpu candidates, whose timing it would disturb.
  void overlap_reference(bool on) { m_overlap = on; }
  // Accumulates the trusted side's time into `t` (which must outlive the harness).
  void account_to(TrustedTimes* t) { m_times = t; }

  // Validation: each tensor placed at exactly the alignment the spec guarantees it (core::
  // tensor_alignment; for 4 bytes an address of 4 mod 64), not the arena's 64 (docs/specs.md
  // "Alignment"). Timing keeps aligned placement. Before prepare().
  void place_at_least_alignment(bool on) { m_least_aligned = on; }
  // Lays out the arena and maps it in the runner.
  std::optional<CheckFailure> prepare();
  // Fresh inputs from `seed` under `dist` into the arena and the reference's outputs. A reference
  // that fails is reported (status error, blaming the spec) by the next verify.
  void load_inputs(const core::Distribution& dist, uint64_t seed);
  // The inputs `from` holds now (a harness of the same workload in another arena: the candidate's,
  // when this is the incumbent's side of an interleaved comparison), copied into this arena: the
  // same values, not generated again. `with_expected`: its reference outputs too, so this side can
  // be verified; without them a verify() on these inputs fails as an error (nothing to compare).
  void adopt_inputs(const WorkloadHarness& from, bool with_expected);
  // Runs `other`, a second trusted reference named `other_name`, on the inputs loaded now (before
  // the kernel runs on them) and compares its outputs with this harness's (CPU) reference's under
  // the variant's tolerances: how they disagree or how it failed ("workload w (inputs: d): ..."),
  // or nothing. Specs with inout tensors have no second reference.
  std::optional<std::string> cross_check(Reference& other, const std::string& other_name);
  // Poisons outputs, arms guards, calls the kernel once and verifies.
  std::optional<CheckFailure> run_and_verify(uint64_t guard_seed, unsigned char poison = 0xff);
  // A tool's pass (eval/tool_pass.hpp): the next load_inputs computes no expected outputs, and
  // run_unverified() calls the kernel once on them (outputs poisoned, guards armed) and reports
  // only how the call itself failed, if it did. Before load_inputs.
  void skip_reference(bool on) { m_skip_reference = on; }
  std::optional<CheckFailure> run_unverified(uint64_t guard_seed);
  // Runs again on the same inputs: outputs must be identical (or within tolerance when the spec
  // allows nondeterminism).
  std::optional<CheckFailure> check_determinism(uint64_t guard_seed);
  // Calls that were not verified have overwritten the arena's outputs (a runner that works on
  // the shared arena itself): they are no longer the last verified outputs.
  void outputs_unverified() { m_outputs_verified = false; }
  // Verifies what the arena holds now (after a call or a timing batch).
  std::optional<CheckFailure> verify(const std::string& when, unsigned char poison = 0xff);

  const std::vector<TensorSlot>& slots() const { return m_slots; }
  const std::map<std::string, int64_t>& params() const { return m_workload.params; }

 private:
  struct OutputComparison {
    const TensorSlot* slot;
    const core::Tolerance* tol;
    Comparison comparison;
  };
  std::string context() const;
  const TensorSlot* slot(const std::string& name) const;
  // Output slot `s` holding `got` (in `dtype`) against the expected outputs: one comparison, or for
  // an index output under a set rule the values' and the indices' (`doubles`: every output as
  // doubles, for a second reference's outputs; null: the arena's); none for a set rule's values
  // output, which its index output compares.
  std::vector<OutputComparison> compare_slot(const TensorSlot& s, const void* got, core::DType dtype,
                                             const std::map<std::string, std::vector<double>>* doubles,
                                             unsigned char poison) const;
  std::optional<CheckFailure> await_reference();  // how the reference failed, if it did
  // Inout tensors from their inputs, outputs poisoned, guards armed, one call: how it failed.
  std::optional<CheckFailure> call_once(uint64_t guard_seed, unsigned char poison);
  size_t output_bytes() const;                     // bytes of the out and inout tensors

  const core::Spec& m_spec;
  const core::Variant& m_variant;
  Reference& m_reference;
  SharedArena& m_arena;
  RunnerSession& m_runner;
  const core::Workload& m_workload;
  core::WorkloadResult& m_result;
  std::vector<TensorSlot> m_slots;
  // Inputs: generated in the arena from per-tensor seeds and checked by keyed checksums.
  std::map<std::string, uint64_t> m_input_seeds, m_input_sums;
  uint64_t m_input_key = 0;
  const core::Distribution* m_dist = nullptr;
  std::map<std::string, core::Generator> m_generators;  // m_dist's, resolved for the workload
  std::map<std::string, std::vector<char>> m_inputs;      // private copies of inout tensors
  std::map<std::string, std::vector<double>> m_expected;  // reference outputs
  std::map<std::string, std::vector<char>> m_first;       // determinism: the first run's outputs
  std::map<std::string, uint64_t> m_previous_sums;        // checksums of the previous set's outputs
  bool m_outputs_verified = false;                        // the arena holds outputs verified for these inputs
  uint64_t m_previous_key = 0;
  std::string m_distribution;
  bool m_overlap = false;
  bool m_least_aligned = false;  // place_at_least_alignment
  bool m_have_expected = true;  // false after adopt_inputs without the expected outputs
  bool m_skip_reference = false;  // skip_reference
  TrustedTimes* m_times = nullptr;
  std::future<util::Result<void>> m_reference_done;
  std::optional<CheckFailure> m_reference_failure;  // sticky: these inputs have no expected outputs
};

}  // namespace kwb::eval
