#pragma once
// The candidate's resources beside the incumbent's (docs/verdict.md "Resources"): per timed bench
// workload and kernel, registers, spills, static and dynamic shared memory, barriers and the
// theoretical occupancy with its limiter, each side under the config it times that workload
// with, and the losses in plain sentences (occupancy down, spills up). A pure function of two
// sets of compiler facts (core/feedback.hpp, docs/verdict.md "Compiler facts").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/feedback.hpp"

namespace kwb::core {

// The theoretical occupancy of one kernel at one workload's launch shape.
struct ResourceOccupancy {
  int64_t threads = 0;  // per block
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double pct = 0;          // active warps / the SM's maximum
  std::string limited_by;  // as in Occupancy::limited_by
};

// One kernel of one side, under the config that side times the workload with.
struct KernelResources {
  std::string kernel, config;
  int registers = 0;
  int64_t spill_store_bytes = 0, spill_load_bytes = 0;  // per thread
  int64_t static_smem_bytes = 0;
  std::optional<int64_t> dynamic_smem_bytes;   // the plan's smem= at this workload; null: no launch shape known
  int barriers = 0;
  std::optional<ResourceOccupancy> occupancy;  // null: none computed (cuda-launcher, an arch outside the table)
};

struct ResourceRow {
  std::string workload;
  std::optional<KernelResources> candidate, incumbent;  // null: that side has no kernel to pair with the other's
  std::vector<std::string> losses;                      // this pair's losses, as sentences
};

struct ResourceDiff {
  std::vector<ResourceRow> rows;
  // Each loss once, "kernel: sentence on w1, w2", in the order first seen.
  std::vector<std::string> losses;
};

// `candidate` / `incumbent`: each side's compiler facts; `*_configs`: per bench workload, the
// config label that side times it with (a workload missing there: the side's first config);
// `workloads`: the timed bench workloads, in order. Kernels of the two configs are paired by
// name, then the rest in plan order.
ResourceDiff resource_diff(const std::vector<ConfigFacts>& candidate,
                           const std::map<std::string, std::string>& candidate_configs,
                           const std::vector<ConfigFacts>& incumbent,
                           const std::map<std::string, std::string>& incumbent_configs,
                           const std::vector<std::string>& workloads);

// The losses of `candidate` against `incumbent` (the same workload): occupancy down (fewer warps
// per SM; the limiter named with both sides' figure for it) and spills up.
std::vector<std::string> resource_losses(const KernelResources& candidate, const KernelResources& incumbent);

// The label of the first config of `facts` whose values ("BLOCK=256,ROWS=2") all equal those in
// `values` (a recorded config, which may hold the spec's params too), as a plan evaluation picks
// the config of a tuning record (eval/cuda_evaluation.cpp, configure_timing); else the first
// config's label; "" when there is none.
std::string matching_config(const std::vector<ConfigFacts>& facts, const std::map<std::string, int64_t>& values);

nlohmann::json to_json(const ResourceDiff& d);
ResourceDiff resource_diff_from_json(const nlohmann::json& j);

// As text: per row the candidate's line, then the incumbent's, then its losses (kwb diff, the
// verdict table). "" for a diff without rows.
std::string resource_table(const ResourceDiff& d);

}  // namespace kwb::core
