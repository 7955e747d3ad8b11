#include "eval/cuda_facts.hpp"

#include <algorithm>

#include "build/occupancy.hpp"
#include "spec/launch_plan.hpp"

namespace kwb::eval {

namespace {

core::KernelFacts* find_kernel(core::ConfigFacts& facts, const std::string& name) {
  for (auto& k : facts.kernels)
    if (k.kernel == name) return &k;
  return nullptr;
}

core::Occupancy* find_shape(core::KernelFacts& k, int64_t threads, int64_t smem) {
  for (auto& o : k.occupancy)
    if (o.threads == threads && o.dynamic_smem_bytes == smem) return &o;
  return nullptr;
}

}  // namespace

void add_occupancy(core::ConfigFacts& facts, const core::LaunchPlan& plan, const core::TuneConfig& config,
                   const std::vector<core::Workload>& bench, const std::string& file, const core::LaunchLimits& limits) {
  auto arch = build::arch_limits(facts.arch);
  if (!arch) return;
  for (const auto& w : bench) {
    if (!w.runs_on(core::Backend::cuda)) continue;
    auto dims = spec::resolve_launches(plan, config, w.params, file, w.name, limits);
    if (!dims) continue;  // analyze() already refused plans that do not resolve
    for (size_t i = 0; i < dims->size() && i < plan.launches.size(); ++i) {
      core::KernelFacts* k = find_kernel(facts, plan.launches[i].kernel);
      if (!k) continue;
      const auto& d = (*dims)[i];
      int64_t threads = d.block[0] * d.block[1] * d.block[2];
      core::Occupancy* o = find_shape(*k, threads, d.smem);
      if (!o) {
        k->occupancy.push_back(
            build::occupancy(*arch, {k->registers, k->static_smem_bytes}, threads, d.smem));
        o = &k->occupancy.back();
      }
      if (std::find(o->workloads.begin(), o->workloads.end(), w.name) == o->workloads.end())
        o->workloads.push_back(w.name);
    }
  }
}

std::string add_runner_attributes(core::ConfigFacts& facts, const core::LaunchPlan& plan, const nlohmann::json& reply) {
  auto it = reply.find("kernels");
  if (it == reply.end()) return "the runner's load reply has no \"kernels\"";
  if (!it->is_array() || it->size() != plan.launches.size())
    return "the runner's load reply does not have one \"kernels\" entry per launch";
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& e = (*it)[i];  // types checked by runner_client_reply.cpp
    if (e.value("name", std::string()) != plan.launches[i].kernel)
      return "the runner's load reply names kernel " + e.value("name", std::string("?")) + " where the plan has " +
             plan.launches[i].kernel;
    core::KernelFacts* k = find_kernel(facts, plan.launches[i].kernel);
    if (!k) continue;
    k->runner = core::RunnerKernelAttributes{e.value("registers", 0), e.value("local_bytes", 0),
                                             e.value("static_smem", 0), e.value("max_threads", 0)};
  }
  return "";
}

void add_runner_occupancy(core::ConfigFacts& facts, const core::LaunchPlan& plan, const nlohmann::json& dims_cmd,
                          const nlohmann::json& reply) {
  auto occ = reply.find("occupancy");
  const auto& launches = dims_cmd.at("launches");
  if (occ == reply.end() || !occ->is_array() || occ->size() != launches.size()) return;
  for (size_t i = 0; i < launches.size() && i < plan.launches.size(); ++i) {
    core::KernelFacts* k = find_kernel(facts, plan.launches[i].kernel);
    if (!k) continue;
    const auto& b = launches[i].at("block");
    int64_t threads = b.at(0).get<int64_t>() * b.at(1).get<int64_t>() * b.at(2).get<int64_t>();
    if (core::Occupancy* o = find_shape(*k, threads, launches[i].at("smem").get<int64_t>()))
      o->runner_blocks_per_sm = int(std::min<uint64_t>((*occ)[i].get<uint64_t>(), 1u << 20));
  }
}

}  // namespace kwb::eval
