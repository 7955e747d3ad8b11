#pragma once
// The kwb-gpu-runner commands of a `cuda`-form launch plan (docs/cuda.md): load a module with the
// plan's kernels and argument bindings, and set one workload's launch dimensions. Used for
// candidates and for specs' GPU references alike.
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/launch_plan.hpp"
#include "util/error.hpp"

namespace kwb::eval {

// {"op": "load", "cubin": path, "kernels": [{name, args: [[kind, index], ...]}], "strict_l2"}; kind
// is "tensor" (index among the variant's tensors), "param", "scalar" (a double) or "workspace".
nlohmann::json load_module_command(const core::LaunchPlan& plan, const std::string& cubin_path, bool strict_l2);

// {"op": "dims", "launches": [{grid, block, smem}], "workspace_bytes"} for one workload and config;
// errors name `file` and `workload` (a launch outside the limits).
util::Result<nlohmann::json> dims_command(const core::LaunchPlan& plan, const core::TuneConfig& config,
                                          const std::map<std::string, int64_t>& params, std::string_view file,
                                          std::string_view workload, const core::LaunchLimits& limits);

}  // namespace kwb::eval
