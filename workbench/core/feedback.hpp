#pragma once
// Feedback an agent can act on (issue 19, docs/verdict.md "Feedback"): why a kernel is as fast as
// it is. Compiler facts per config and kernel (verdict.compiler_facts[]), and per bench workload a
// `feedback` object (the config timed, its roofline position; later profiles and sanitizer runs).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/profile.hpp"

namespace kwb::core {

// Counts of PTX instructions of one kernel that tell how it moves data and whether it uses the
// tensor cores (static counts in the code, not executed ones).
struct InstructionMix {
  int ld_global = 0, ld_global_v2 = 0, ld_global_v4 = 0;  // scalar, 2- and 4-wide global loads
  int st_global = 0, st_global_v2 = 0, st_global_v4 = 0;
  int ld_shared = 0, st_shared = 0;
  int cp_async = 0;  // cp.async (incl. the bulk/TMA forms)
  int mma = 0;       // mma.sync / wmma (tensor cores, warp level)
  int wgmma = 0;     // wgmma.mma_async (Hopper tensor cores, warpgroup level)
  bool tensor_cores() const { return mma + wgmma > 0; }
};

// Counts of SASS instructions of one kernel (static, from the disassembled cubin): exact where
// PTX is not, since ptxas may split, merge or vectorise accesses and add local-memory traffic.
// Widths are the access's bits (LDG.E.128 is 128, LDG.E 32; 8- and 16-bit accesses count as 32).
struct SassMix {
  int instructions = 0;
  int ldg_32 = 0, ldg_64 = 0, ldg_128 = 0;  // LDG (global loads)
  int stg_32 = 0, stg_64 = 0, stg_128 = 0;  // STG (global stores)
  int lds = 0, sts = 0, ldsm = 0;           // shared loads, stores, LDSM (ldmatrix)
  int ldgsts = 0;                           // LDGSTS (cp.async global -> shared)
  int tma = 0;                              // UTMALDG / UTMASTG / UBLKCP (bulk copies, TMA)
  int ldl = 0, stl = 0;                     // local memory: spills or stack arrays
  int hmma = 0, hgmma = 0, imma = 0;        // tensor cores: warp MMA, Hopper warpgroup MMA, integer MMA
  int other_mma = 0;                        // QGMMA, IGMMA, DMMA, BMMA, ...
  bool tensor_cores() const { return hmma + hgmma + imma + other_mma > 0; }
};

// The theoretical occupancy of one kernel at one launch shape (threads per block, dynamic shared
// memory), from its registers and static shared memory and the architecture's limits.
struct Occupancy {
  int64_t threads = 0;             // per block
  int64_t dynamic_smem_bytes = 0;  // per block
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double pct = 0;                  // active warps / the SM's maximum, in percent
  std::string limited_by;          // "warps" | "blocks" | "registers" | "shared_memory" | "" (unbounded)
  std::optional<int> runner_blocks_per_sm;  // cuOccupancyMaxActiveBlocksPerMultiprocessor (on a device)
  std::vector<std::string> workloads;       // the bench workloads launching it so
};

// What the driver says about a loaded kernel (cuFuncGetAttribute in kwb-gpu-runner).
struct RunnerKernelAttributes {
  int registers = 0, local_bytes = 0, static_smem_bytes = 0, max_threads_per_block = 0;
};

struct KernelFacts {
  std::string kernel;
  int registers = 0;
  int64_t spill_store_bytes = 0, spill_load_bytes = 0;
  int64_t stack_frame_bytes = 0;  // local memory per thread
  int64_t static_smem_bytes = 0;
  int barriers = 0;
  int max_threads_per_block = 0;  // what its registers allow (1024 at most)
  InstructionMix instructions;       // from the PTX (cuda form); zeros where no PTX is kept
  std::optional<SassMix> sass;       // from the disassembled cubin, where a disassembler is installed
  std::vector<Occupancy> occupancy;
  std::optional<RunnerKernelAttributes> runner;
};

// One compiled config of a cuda-form candidate.
struct ConfigFacts {
  std::string config;  // TuneConfig::label()
  std::string arch;    // "sm_90a"
  std::string source;  // where the numbers come from: "nvrtc ptxas -v" | "nvcc -Xptxas -v"
  std::string ptx_sha256, cubin_sha256;  // the stored artifacts (GET /v1/candidates/{id}/artifacts/...)
  std::string sass_sha256;  // the stored SASS text; "" where there is none (sass_note says why)
  std::string sass_tool;    // "nvdisasm 13.0.88" | "cuobjdump 13.0.88" | ""
  std::string sass_note;    // why there is no SASS ("" when there is)
  std::vector<KernelFacts> kernels;
};

// A workload's place under one set of roofs.
struct RooflinePosition {
  std::string peaks;            // "calibrated" | "data_sheet"
  double bytes_per_s = 0;       // the memory roof
  std::optional<double> flops_per_s;      // the compute roof; null when unknown
  std::optional<double> ridge_intensity;  // flops per byte where the roofs meet
  std::string bound;            // "memory" | "compute": which roof binds at this intensity
  double pct_of_roof = 0;       // achieved / the binding roof, in percent
  double headroom_pct = 0;      // 100 - pct_of_roof (negative: faster than the roof, data in cache)
};

struct WorkloadFeedback {
  std::string config;                  // the config whose time the workload reports ("default")
  std::optional<double> intensity;     // flops per byte of the spec's roofline (null: no bytes)
  std::vector<RooflinePosition> roofline;
  // Nsight Compute's profile of the config's kernels on this workload (docs/profiles.md), one per
  // profiled launch; empty unless a profile was asked for and taken.
  std::vector<KernelProfile> profile;
};

// A profile asked for with "profile": true (docs/verdict.md "Profiles"): whether it was taken and
// why not. `status`: "measured" (each bench workload's feedback.profile holds it) | "failed" (ncu
// ran but gave nothing usable: `reason`) | "no_device" | "not_applicable" (cpu) | "skipped" (the
// candidate did not get to timing) | "unavailable" (no Nsight Compute on this machine).
struct ProfileOutcome {
  std::string status;
  std::string reason;
  double ms = 0;               // the profile pass, every workload (0: none ran)
  std::string report_sha256;   // ncu's raw reports, stored (GET .../artifacts/ncu); "" when not kept
  std::string report;          // not in JSON: the raw reports until the daemon stores them
};

// compute-sanitizer's runs of a CUDA candidate (docs/profiles.md "Sanitizer"): memcheck, then
// racecheck and synccheck where its kernels use shared memory or barriers, then initcheck, on one
// workload and config (the first failing one after a crash, a wrong result or a hang). Its
// findings are also the verdict's diagnostics[]; the verdict's status stays what the checks found.
// `status`: "clean" (every tool ran and found nothing) | "findings" | "failed" (a tool did not run
// to its end: `reason`) | "unavailable" (no compute-sanitizer or no device).
struct SanitizerOutcome {
  std::string status;
  std::string reason;
  std::string workload, config;
  double ms = 0;  // every tool's run together
  std::vector<SanitizerRun> runs;
};

nlohmann::json to_json(const SanitizerOutcome& s);
SanitizerOutcome sanitizer_outcome_from_json(const nlohmann::json& j);
nlohmann::json to_json(const ConfigFacts& f);
nlohmann::json to_json(const ProfileOutcome& p);
ProfileOutcome profile_outcome_from_json(const nlohmann::json& j);
nlohmann::json to_json(const WorkloadFeedback& f);
ConfigFacts config_facts_from_json(const nlohmann::json& j);
WorkloadFeedback workload_feedback_from_json(const nlohmann::json& j);

}  // namespace kwb::core
