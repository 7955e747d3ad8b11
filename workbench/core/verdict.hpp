#pragma once
// kwb.verdict.v1 (docs/verdict.md): one struct, rendered as JSON (verdict_json) or a table (app).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/feedback.hpp"
#include "core/resource_diff.hpp"

namespace kwb::core {

enum class Status {
  accepted, incorrect, compile_error, rejected, sandbox_violation,
  time_limit, memory_limit, output_limit, crashed, no_device, error
};
std::string_view status_name(Status s);

struct Diagnostic {
  std::string file;
  int line = 0, col = 0;
  std::string severity;  // "error" | "warning" | "note"
  std::string message;
  std::string rule;      // analysis rule id (e.g. "entry-signature"); empty for compiler output
};

struct Mismatch {
  std::string tensor;
  std::vector<int64_t> index;  // coordinates in the tensor's shape
  double got = 0, expected = 0;
};

struct TimeStats {
  double median_ns = 0, mean_ns = 0, min_ns = 0, max_ns = 0, p10_ns = 0, p90_ns = 0;
  double stdev_pct = 0;       // relative standard deviation of one sample
  double mean_stderr_pct = 0; // relative standard error of the mean (the stopping criterion)
  int samples = 0;
  int discarded = 0;
  std::string stop_reason;  // core::TimingStop's name (core/timing_names.hpp): "converged", "budget", ...
  std::string clock;        // core::TimingClock's name: "steady_clock", "cuda_event", "cupti_kernel", "mixed"
  bool cold = true;         // caches flushed before each sample
  // GPU: an empty kernel timed the same way (after the flush, by the same clock), once per runner
  // session: the floor of what the clock reads (CUDA events: the launch latency in the window;
  // CUPTI: the empty kernel's own duration). Not subtracted (docs/cuda.md "Timing").
  double launch_overhead_ns = 0;
  // GPU: the SM clock NVML read at each timing batch (0 when unknown), to compare runs and tools.
  unsigned sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;
  double timed_ms = 0;  // wall time of the timing batches (what the budget counts)
  // Timed in block pairs interleaved with the incumbent (one pass, docs/library.md "One pass"):
  // the comparison's first blocks; timed_ms counts both sides' blocks then.
  bool interleaved = false;
  // Every sample (ns), in the order timed: kept with the candidate as its samples artifact (GET
  // /v1/candidates/{id}/artifacts/samples), not written into the verdict's JSON.
  std::vector<double> samples_ns;
};

// An interleaved A/B comparison of one bench workload with the incumbent (docs/library.md
// "Decide"): both timed in the same device slot, alternating in blocks on the same inputs.
struct Comparison {
  std::string label;           // core::ComparisonLabel's name: "faster", "slower", "same", "undecided"
  double ratio = 0;            // incumbent time / candidate time, median of the per-block ratios (> 1: faster)
  double low = 0, high = 0;    // its distribution-free confidence interval (order statistics)
  double confidence = 0;       // of the interval
  int blocks = 0;              // block pairs timed
  int samples = 0;             // calls timed per side
  double candidate_ns = 0, incumbent_ns = 0;  // medians of all samples of each side
  double ms = 0;               // wall time of the comparison
  std::string stop_reason;     // core::ComparisonStop's name: "settled", "budget", "max_blocks"
  // The blocks themselves (each pair's ratio, both sides' samples): kept with the candidate as its
  // blocks artifact, not written into the verdict's JSON.
  std::vector<double> block_ratios, candidate_samples_ns, incumbent_samples_ns;
};

// The machine while a verdict's timings ran (docs/evaluation.md "Machine state").
struct MachineState {
  double load_avg_1m = 0;      // highest 1-minute load average seen
  int running_max = 0;         // most runnable threads seen (/proc/stat procs_running), ours included
  int cores = 0;               // usable cores
  bool busy = false;           // other processes' threads runnable again and again (others_seen)
  std::string detail;          // one line: what was seen
  int others_max = 0;          // most runnable threads of other processes in one sample (not the
                               // workbench's process tree, not kernel threads)
  int others_seen = 0;         // samples that saw any
  int samples = 0;             // samples taken
};

struct RooflineResult {
  double bytes = 0, flops = 0;
  std::optional<double> pct_bw, pct_flops;  // against the calibrated peaks; null when unknown
  // GPU: against the device's data-sheet peaks (bandwidth; f32, or tensor bf16 for low-precision
  // variants); null where the model is not in the table.
  std::optional<double> pct_bw_sheet, pct_flops_sheet;
};

// One tunable config of a bench workload, as the round-robin choice saw it (docs/cuda.md
// "Choosing a config").
struct ConfigTime {
  std::string config;       // its label ("BLOCK=256")
  double median_ns = 0;     // of its round-robin blocks' medians
  double vs_winner = 1;     // its time / the winner's (per-round ratios' median)
  double low = 1, high = 1; // their interval
  std::string label;        // core::ConfigLabel's name: "winner", "slower", "tie"
};

struct WorkloadResult {
  std::string name;
  std::string kind;  // "test" | "bench"
  bool drawn = false;  // a test workload drawn from the spec's shapes for this evaluation
  // Which trusted reference computed the expected outputs: "cpu" (reference.cpp) or "gpu" (the
  // spec's GPU reference, cross-checked against the CPU one in the same evaluation).
  std::string reference = "cpu";
  std::map<std::string, int64_t> params;
  bool correct = true;
  int checks = 0;  // number of input sets compared
  double max_abs_err = 0, max_rel_err = 0;
  int64_t mismatches = 0;
  std::optional<Mismatch> first_mismatch;
  std::optional<TimeStats> time;
  // CUDA, launch-bound bench workloads (docs/cuda.md "CUDA graphs"): the same call timed by CUDA
  // graph replay in the same harness, beside `time` (eager launches). Reported, not decided on.
  std::optional<TimeStats> time_graph;
  std::optional<RooflineResult> roofline;
  std::optional<double> vs_incumbent, vs_baseline;  // speed-up: other_time / this_time
  std::optional<Comparison> comparison;             // the interleaved A/B comparison behind vs_incumbent
  std::optional<WorkloadFeedback> feedback;         // bench, timed: config and roofline position (core/feedback.hpp)
  std::vector<ConfigTime> config_times;             // bench, several tunable configs: how the winner was chosen
};

// The library kernel a verdict was compared with (docs/library.md).
struct IncumbentRef {
  std::string kernel;         // library path, e.g. "softmax/cpu/three_pass.cpp"
  std::string commit;         // library commit the comparison read
  std::string source_sha256;  // of the incumbent's source
  std::string device_class;   // dispatch key the incumbent holds ("any", "cpu-x86_64-v3", "cuda-sm_90")
  bool remeasured = false;    // timed in the same run (always, since the interleaved comparison)
};

// What the decision rule made of the comparisons (library/decision.hpp).
struct Decision {
  bool promotable = false;
  std::string reason;                  // one line: why (not)
  std::vector<std::string> undecided;  // bench workloads whose interval was too wide
  std::vector<std::string> regressions;
  std::vector<std::string> wins;
};

struct Summary {
  std::optional<double> geomean_vs_incumbent, geomean_vs_baseline;
  std::optional<bool> beats_incumbent;
  std::optional<IncumbentRef> incumbent;  // null: not compared (no library, or not accepted)
  std::optional<Decision> decision;       // null: no interleaved comparison ran
  std::optional<MachineState> machine;    // the machine during timing
  // The candidate's resources beside the incumbent's (core/resource_diff.hpp), from both sides'
  // compiler facts when compared; null: not compared, or a side without facts (cpu).
  std::optional<ResourceDiff> resources;
  double wall_ms = 0;
  std::map<std::string, double> stage_ms;
  std::string compile_cache;  // "hit" | "miss" | "off"  // analyze, compile, validate, benchmark
  // The sha256 of the raw samples (docs/verdict.md "Samples"): each timed workload's samples, and
  // the comparison's block pairs; "" where none were kept.
  std::string samples_sha256, blocks_sha256;
  // The measurement method's salt it was timed with (core/measurement_method.hpp); "" for
  // verdicts of before salts.
  std::string method;
};

struct Verdict {
  std::string candidate;  // id or source path
  std::string op, variant, backend;
  int spec_version = 0;   // the version of the op's spec it was judged under (0: unknown, older verdicts)
  Status status = Status::error;
  std::string reason;
  std::vector<Diagnostic> diagnostics;
  std::string device;
  std::string toolchain;
  std::vector<WorkloadResult> workloads;
  // cuda form: what the compiler made of each config (registers, spills, occupancy, instructions).
  std::vector<ConfigFacts> compiler_facts;
  // Asked for with "profile": true: whether a profile was taken and why not (absent: not asked).
  std::optional<ProfileOutcome> profile;
  // compute-sanitizer's runs (core/feedback.hpp SanitizerOutcome); absent: none ran.
  std::optional<SanitizerOutcome> sanitizer;
  Summary summary;
};

nlohmann::json to_json(const Verdict& v);

}  // namespace kwb::core
