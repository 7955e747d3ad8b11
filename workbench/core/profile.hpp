#pragma once
// What Nsight Compute and compute-sanitizer say about a CUDA candidate (issue 34, docs/profiles.md):
// plain values, read from the tools' output by eval/ncu_report.* and eval/sanitizer_report.*, and
// their JSON. A metric ncu did not report stays empty (null in JSON), never 0: a finding is only
// ever derived from a number that was measured.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::core {

// One warp-stall reason of a profiled kernel (ncu's name without the metric's prefix and suffix).
struct WarpStall {
  std::string reason;           // "long_scoreboard", "barrier", "mio_throttle", ...
  std::optional<double> ratio;  // warp cycles stalled on it per issued instruction (null: sampled only)
  std::optional<double> pct;    // its share of all stall reasons reported, in percent
};

// A rule result of ncu's details page (its own advice), e.g. UncoalescedGlobalAccess.
struct NcuRule {
  std::string section;  // the section identifier: "MemoryWorkloadAnalysis_Tables"
  std::string name;     // the rule: "UncoalescedGlobalAccess"
  std::string type;     // "OPT" (an optimisation) | "WRN" | "INF" | "ERR"
  std::string text;     // the rule's description, as ncu wrote it
  std::optional<double> estimated_speedup_pct;  // ncu's estimate of the gain, where it gave one
};

// One profiled kernel launch.
struct KernelProfile {
  std::string kernel;                 // the kernel's name as ncu reports it
  std::optional<double> duration_ns;  // gpu__time_duration.sum
  std::string grid, block;            // "(128, 1, 1)": the launch's shape
  std::optional<double> dram_sol_pct;    // DRAM throughput, % of its peak
  std::optional<double> memory_sol_pct;  // the busiest memory unit (L1, L2, DRAM), % of its peak
  std::optional<double> sm_sol_pct;      // the busiest SM pipeline, % of its peak
  std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct;
  std::string occupancy_limiter;  // "registers" | "shared_memory" | "warps" | "blocks" | "" (unknown)
  std::optional<int> registers_per_thread;
  std::optional<double> l1_hit_pct, l2_hit_pct;
  std::optional<double> global_load_sectors_per_request, global_store_sectors_per_request;
  std::optional<int64_t> shared_load_bank_conflicts, shared_store_bank_conflicts;
  std::optional<int64_t> shared_load_wavefronts, shared_store_wavefronts;  // incl. the conflicts' replays
  std::optional<double> tensor_pipe_pct;  // the busiest tensor pipe (mma, wgmma), % of its peak
  std::optional<int64_t> local_load_bytes, local_store_bytes;  // local memory traffic (spills, stack)
  std::vector<WarpStall> stalls;       // the top reasons, largest first (at most 5)
  std::vector<std::string> findings;   // plain sentences: what the numbers say to do
  std::vector<NcuRule> ncu_rules;      // ncu's own rule results, where the details page was read
};

// One report of a compute-sanitizer tool.
struct SanitizerFinding {
  std::string tool;      // "memcheck" | "racecheck" | "synccheck" | "initcheck"
  std::string severity;  // "error" | "warning" (racecheck's warnings)
  std::string kind;      // "invalid global write", "shared memory race (Write/Read)", "barrier error", ...
  std::string file;      // the source file of the access ("" without line information)
  int line = 0;
  std::string kernel;
  std::optional<int64_t> access_size_bytes;
  std::string address;   // "0x7f5ee2000fa0"
  std::string thread;    // "(232,0,0)"
  std::string block;     // "(3,0,0)"
  std::string other_file;  // racecheck: the other access of the pair
  int other_line = 0;
  std::optional<int64_t> hazards;  // racecheck: "[2048 hazards]"
  std::string message;   // the tool's own first line, trimmed
  std::string detail;    // what it adds ("is out of bounds and is 1 bytes after the nearest allocation ...")
};

// One run of one compute-sanitizer tool. `status`: "clean" (its summary says 0 errors), "findings"
// (errors reported) or "failed" (no summary: the tool or the program did not run to its end; see
// `reason`). `findings` holds the first reports (at most 10) of `error_count` and `warning_count`.
struct SanitizerRun {
  std::string tool;
  std::string status;
  int error_count = 0;
  int warning_count = 0;
  std::vector<SanitizerFinding> findings;
  std::string reason;
};

nlohmann::json to_json(const KernelProfile& p);
KernelProfile kernel_profile_from_json(const nlohmann::json& j);
nlohmann::json to_json(const SanitizerFinding& f);
SanitizerFinding sanitizer_finding_from_json(const nlohmann::json& j);
nlohmann::json to_json(const SanitizerRun& r);
SanitizerRun sanitizer_run_from_json(const nlohmann::json& j);

}  // namespace kwb::core
