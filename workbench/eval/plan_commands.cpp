#include "eval/plan_commands.hpp"

#include "spec/launch_plan.hpp"

namespace kwb::eval {

nlohmann::json load_module_command(const core::LaunchPlan& plan, const std::string& cubin_path, bool strict_l2) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& l : plan.launches) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& a : l.args)
      args.push_back({a.kind == core::LaunchArg::Kind::tensor   ? "tensor"
                      : a.kind == core::LaunchArg::Kind::param  ? "param"
                      : a.kind == core::LaunchArg::Kind::scalar ? "scalar"
                                                                : "workspace",
                      a.index});
    kernels.push_back({{"name", l.kernel}, {"args", args}});
  }
  return {{"op", "load"}, {"cubin", cubin_path}, {"kernels", kernels}, {"strict_l2", strict_l2}};
}

util::Result<nlohmann::json> dims_command(const core::LaunchPlan& plan, const core::TuneConfig& config,
                                          const std::map<std::string, int64_t>& params, std::string_view file,
                                          std::string_view workload, const core::LaunchLimits& limits) {
  auto dims = spec::resolve_launches(plan, config, params, file, workload, limits);
  if (!dims) return std::unexpected(dims.error());
  auto ws = spec::resolve_workspace(plan, config, params, file, workload, limits);
  if (!ws) return std::unexpected(ws.error());
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& d : *dims)
    launches.push_back({{"grid", {d.grid[0], d.grid[1], d.grid[2]}},
                        {"block", {d.block[0], d.block[1], d.block[2]}},
                        {"smem", d.smem}});
  return nlohmann::json{{"op", "dims"}, {"launches", launches}, {"workspace_bytes", *ws}};
}

}  // namespace kwb::eval
