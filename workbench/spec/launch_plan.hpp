#pragma once
// Parsing, checking and evaluating the launch plan of a `cuda`-form candidate
// (core/launch_plan.hpp, docs/cuda.md). Errors name the source line:
//   candidate.cu:3: kwb:launch: unknown argument 'z' (tensors: x, y; params: rows, cols)
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/launch_plan.hpp"
#include "core/spec.hpp"
#include "spec/tune_space.hpp"
#include "util/error.hpp"

namespace kwb::spec {

// Reads every `// kwb:launch|tune|constraint|workspace|variant ...` comment line of `source` and
// checks its syntax (expressions included) and the tunables' space (spec/tune_space.hpp: at most
// k_max_tune_space configs after the constraints). `file` names the source in errors.
util::Result<core::LaunchPlan> parse_launch_plan(std::string_view source, std::string_view file);

// Binds argument names to the spec's tensors, params and scalars (fills LaunchArg::kind and index)
// and checks every name: arguments, names used in expressions (params and tunables only), tunables
// that shadow a param, scalar or tensor, `workspace` without a kwb:workspace line, outputs that no
// kernel receives. With `variant`, tensors are the variant's (its optional tensors left out, tensor
// indices counting the ones it has, as the runner's buffers do); without, every spec tensor.
util::Result<void> bind_launch_plan(core::LaunchPlan& plan, const core::Spec& spec, std::string_view file,
                                    const core::Variant* variant = nullptr);

// The JSON form of a plan (the API's "launch" and "tune" fields) as comment lines to append to the
// source (appended, so compiler line numbers stay the user's):
//   "launch": "k grid=(rows) block=(256) args=(x, y, rows, cols)"  or an array of such strings;
//             an entry may also be a whole directive: "kwb:workspace bytes=4*rows"
//   "tune":   {"BLOCK": [128, 256]}
// Errors name the field ("launch[1]: expected a string").
util::Result<std::string> plan_lines_from_json(const nlohmann::json& launch, const nlohmann::json& tune);

// The tunables' space: every combination of their values that satisfies the constraints, in the
// order written (one empty config when the plan has no tunables). Above k_max_tune_configs it is
// searched rather than evaluated exhaustively (docs/tuning.md).
std::vector<core::TuneConfig> tune_configs(const core::LaunchPlan& plan);

// The "-DNAME=value" flags of one config.
std::vector<std::string> config_defines(const core::TuneConfig& config);

// Evaluates every launch of the plan for one workload and config and checks the results against
// `limits` (threads per block, block and grid sizes, dynamic shared memory). `workload` names the
// workload in errors.
util::Result<std::vector<core::LaunchDims>> resolve_launches(const core::LaunchPlan& plan,
                                                             const core::TuneConfig& config,
                                                             const std::map<std::string, int64_t>& params,
                                                             std::string_view file, std::string_view workload,
                                                             const core::LaunchLimits& limits = {});

// Workspace bytes for one workload and config (0 without a kwb:workspace line).
util::Result<int64_t> resolve_workspace(const core::LaunchPlan& plan, const core::TuneConfig& config,
                                        const std::map<std::string, int64_t>& params, std::string_view file,
                                        std::string_view workload, const core::LaunchLimits& limits = {});

}  // namespace kwb::spec
