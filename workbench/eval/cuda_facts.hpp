#pragma once
// The compiler facts of a cuda-form candidate in its verdict (docs/verdict.md "Compiler facts"):
// NVRTC's, with the theoretical occupancy at the plan's launch shapes for every bench workload,
// and, on a device, what kwb-gpu-runner read from the driver (cuFuncGetAttribute at load,
// cuOccupancyMaxActiveBlocksPerMultiprocessor at dims). The runner's replies are untrusted input:
// their fields were type-checked (runner_client_reply.cpp) and are matched here by position and
// kernel name; what does not match is left out, with the reason returned.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/feedback.hpp"
#include "core/launch_plan.hpp"
#include "core/spec.hpp"

namespace kwb::eval {

// Adds to every kernel of `facts` its theoretical occupancy at each distinct launch shape the
// bench workloads (those that run on cuda) give it under `config` (one entry per shape, naming
// the workloads). No entries where the architecture is not in build/occupancy.cpp's table.
void add_occupancy(core::ConfigFacts& facts, const core::LaunchPlan& plan, const core::TuneConfig& config,
                   const std::vector<core::Workload>& bench, const std::string& file, const core::LaunchLimits& limits);

// The load reply's "kernels" (one per launch of the plan: name, registers, static_smem,
// local_bytes, max_threads) into each kernel's `runner`; "" or what did not match.
std::string add_runner_attributes(core::ConfigFacts& facts, const core::LaunchPlan& plan, const nlohmann::json& reply);

// The dims reply's "occupancy" (blocks per SM, one per launch) for the launch shapes `dims_cmd`
// sent, onto the matching occupancy entries.
void add_runner_occupancy(core::ConfigFacts& facts, const core::LaunchPlan& plan, const nlohmann::json& dims_cmd,
                          const nlohmann::json& reply);

}  // namespace kwb::eval
