// Binding a parsed launch plan to its spec, and evaluating it for one workload and config.
#include <algorithm>

#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/launch_plan.hpp"

namespace kwb::spec {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

std::string where(std::string_view file, int line) { return fmt::format("{}:{}", file, line); }

// Names an expression may use: the spec's params and the plan's tunables.
util::Result<void> check_names(const std::string& text, const std::string& what, const core::Spec& spec,
                               const core::LaunchPlan& plan, const std::string& at, const char* directive) {
  auto e = Expr::parse(text);
  if (!e) return util::fail(at, fmt::format("{}: {}: {}", directive, what, e.error().message));
  std::vector<std::string> tunables;
  for (const auto& t : plan.tunables) tunables.push_back(t.name);
  for (const auto& n : e->names()) {
    bool ok = std::find(spec.params.begin(), spec.params.end(), n) != spec.params.end() ||
              std::find(tunables.begin(), tunables.end(), n) != tunables.end();
    if (!ok)
      return util::fail(at, fmt::format("{}: {} uses unknown name '{}' (params: {}; tunables: {})", directive, what, n,
                                        join(spec.params), join(tunables)));
  }
  return {};
}

}  // namespace

util::Result<void> bind_launch_plan(core::LaunchPlan& plan, const core::Spec& spec, std::string_view file,
                                    const core::Variant* variant) {
  std::vector<const core::TensorSpec*> present;
  if (variant) present = spec.tensors_of(*variant);
  else
    for (const auto& t : spec.tensors) present.push_back(&t);
  std::vector<std::string> tensors;
  for (const auto* t : present) tensors.push_back(t->name);
  const std::vector<std::string> scalars = spec.scalar_names();
  for (const auto& t : plan.tunables) {
    bool clash = std::find(spec.params.begin(), spec.params.end(), t.name) != spec.params.end() ||
                 std::find(tensors.begin(), tensors.end(), t.name) != tensors.end() ||
                 std::find(scalars.begin(), scalars.end(), t.name) != scalars.end() || t.name == "workspace";
    if (clash)
      return util::fail(where(file, t.line), fmt::format("kwb:tune: tunable '{}' has the name of a param, scalar or "
                                                         "tensor of op {}; rename it (e.g. {}_T)", t.name, spec.op, t.name));
  }
  bool uses_workspace = false;
  for (auto& l : plan.launches) {
    std::string at = where(file, l.line);
    for (auto& a : l.args) {
      auto t = std::find(tensors.begin(), tensors.end(), a.name);
      auto p = std::find(spec.params.begin(), spec.params.end(), a.name);
      auto s = std::find(scalars.begin(), scalars.end(), a.name);
      if (t != tensors.end()) {
        a.kind = core::LaunchArg::Kind::tensor;
        a.index = int(t - tensors.begin());
      } else if (p != spec.params.end()) {
        a.kind = core::LaunchArg::Kind::param;
        a.index = int(p - spec.params.begin());
      } else if (s != scalars.end()) {
        a.kind = core::LaunchArg::Kind::scalar;
        a.index = int(s - scalars.begin());
      } else if (a.name == "workspace") {
        if (plan.workspace_bytes.empty())
          return util::fail(at, "kwb:launch: argument 'workspace' needs a `// kwb:workspace bytes=EXPR` line");
        a.kind = core::LaunchArg::Kind::workspace;
        a.index = 0;
        uses_workspace = true;
      } else {
        const core::TensorSpec* absent = spec.find_tensor(a.name);
        if (absent && variant)
          return util::fail(at, fmt::format("kwb:launch: tensor '{}' is optional and variant {} leaves it out",
                                            a.name, variant->name));
        return util::fail(at, fmt::format("kwb:launch: unknown argument '{}' (tensors: {}; params: {}{}{})", a.name,
                                          join(tensors), join(spec.params),
                                          scalars.empty() ? "" : "; scalars: " + join(scalars),
                                          plan.workspace_bytes.empty() ? "" : "; workspace"));
      }
    }
    const char* axes[] = {"x", "y", "z"};
    for (size_t i = 0; i < l.grid.size(); ++i)
      if (auto r = check_names(l.grid[i], std::string("grid ") + axes[i], spec, plan, at, "kwb:launch"); !r) return r;
    for (size_t i = 0; i < l.block.size(); ++i)
      if (auto r = check_names(l.block[i], std::string("block ") + axes[i], spec, plan, at, "kwb:launch"); !r)
        return r;
    if (auto r = check_names(l.smem, "smem", spec, plan, at, "kwb:launch"); !r) return r;
  }
  if (!plan.workspace_bytes.empty()) {
    std::string at = where(file, plan.workspace_line);
    if (auto r = check_names(plan.workspace_bytes, "bytes", spec, plan, at, "kwb:workspace"); !r) return r;
    if (!uses_workspace)
      return util::fail(at, "kwb:workspace: no kwb:launch line passes 'workspace' to a kernel");
  }
  for (size_t i = 0; i < present.size(); ++i) {
    if (present[i]->role == core::Role::in) continue;
    bool passed = false;
    for (const auto& l : plan.launches)
      for (const auto& a : l.args) passed |= a.kind == core::LaunchArg::Kind::tensor && a.index == int(i);
    if (!passed)
      return util::fail(where(file, plan.launches.front().line),
                        fmt::format("kwb:launch: output tensor '{}' is not an argument of any kernel", present[i]->name));
  }
  return {};
}

namespace {

Env make_env(const core::TuneConfig& config, const std::map<std::string, int64_t>& params) {
  Env env(params.begin(), params.end());
  for (const auto& [k, v] : config.values) env[k] = v;
  return env;
}

std::string context(const core::TuneConfig& config, std::string_view workload) {
  return config.values.empty() ? fmt::format("workload {}", workload)
                               : fmt::format("workload {}, {}", workload, config.label());
}

}  // namespace

util::Result<std::vector<core::LaunchDims>> resolve_launches(const core::LaunchPlan& plan,
                                                             const core::TuneConfig& config,
                                                             const std::map<std::string, int64_t>& params,
                                                             std::string_view file, std::string_view workload,
                                                             const core::LaunchLimits& limits) {
  Env env = make_env(config, params);
  std::vector<core::LaunchDims> out;
  const char* axes[] = {"x", "y", "z"};
  for (const auto& l : plan.launches) {
    std::string at = where(file, l.line);
    std::string ctx = context(config, workload);
    core::LaunchDims d;
    auto eval_dims = [&](const std::vector<std::string>& exprs, int64_t* dst, const char* what,
                         const int64_t* max) -> util::Result<void> {
      for (size_t i = 0; i < exprs.size(); ++i) {
        auto v = evaluate(exprs[i], env);
        if (!v) return util::fail(at, fmt::format("kwb:launch: {} {} = {}: {} ({})", what, axes[i], exprs[i],
                                                  v.error().message, ctx));
        if (*v < 1)
          return util::fail(at, fmt::format("kwb:launch: {} {} = {} is {} for {}; every dimension must be at least 1 "
                                            "(round up with ceil_div)", what, axes[i], exprs[i], *v, ctx));
        if (*v > max[i])
          return util::fail(at, fmt::format("kwb:launch: {} {} = {} is {} for {}; at most {}", what, axes[i],
                                            exprs[i], *v, ctx, max[i]));
        dst[i] = *v;
      }
      return {};
    };
    if (auto r = eval_dims(l.grid, d.grid, "grid", limits.max_grid); !r) return std::unexpected(r.error());
    if (auto r = eval_dims(l.block, d.block, "block", limits.max_block); !r) return std::unexpected(r.error());
    int64_t threads = d.block[0] * d.block[1] * d.block[2];
    if (threads > limits.max_threads_per_block)
      return util::fail(at, fmt::format("kwb:launch: block has {} threads for {}; at most {} per block", threads, ctx,
                                        limits.max_threads_per_block));
    auto smem = evaluate(l.smem, env);
    if (!smem) return util::fail(at, fmt::format("kwb:launch: smem = {}: {} ({})", l.smem, smem.error().message, ctx));
    if (*smem < 0 || *smem > limits.max_smem_bytes)
      return util::fail(at, fmt::format("kwb:launch: smem = {} is {} bytes for {}; dynamic shared memory must be "
                                        "0..{} bytes ({} KB) per block", l.smem, *smem, ctx, limits.max_smem_bytes,
                                        limits.max_smem_bytes / 1024));
    d.smem = *smem;
    out.push_back(d);
  }
  return out;
}

util::Result<int64_t> resolve_workspace(const core::LaunchPlan& plan, const core::TuneConfig& config,
                                        const std::map<std::string, int64_t>& params, std::string_view file,
                                        std::string_view workload, const core::LaunchLimits& limits) {
  if (plan.workspace_bytes.empty()) return 0;
  std::string at = where(file, plan.workspace_line);
  auto v = evaluate(plan.workspace_bytes, make_env(config, params));
  if (!v)
    return util::fail(at, fmt::format("kwb:workspace: bytes = {}: {} ({})", plan.workspace_bytes, v.error().message,
                                      context(config, workload)));
  if (*v < 0 || *v > limits.max_workspace_bytes)
    return util::fail(at, fmt::format("kwb:workspace: bytes = {} is {} for {}; must be 0..{}", plan.workspace_bytes, *v,
                                      context(config, workload), limits.max_workspace_bytes));
  return *v;
}

}  // namespace kwb::spec
