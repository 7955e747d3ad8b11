#include "library/resources_beside.hpp"

namespace kwb::library {

std::map<std::string, std::string> timed_configs(const core::Verdict& v) {
  std::map<std::string, std::string> out;
  for (const auto& w : v.workloads)
    if (w.kind == "bench" && w.time && w.feedback) out[w.name] = w.feedback->config;
  return out;
}

std::optional<core::ResourceDiff> resources_beside(const core::Verdict& v, const std::vector<core::ConfigFacts>& facts,
                                                   const std::map<std::string, std::string>& timed,
                                                   const std::map<std::string, std::map<std::string, int64_t>>& recorded) {
  if (v.compiler_facts.empty() || facts.empty()) return std::nullopt;
  std::vector<std::string> workloads;
  std::map<std::string, std::string> incumbent = timed;
  for (const auto& w : v.workloads) {
    if (w.kind != "bench" || !w.time) continue;
    workloads.push_back(w.name);
    if (incumbent.contains(w.name)) continue;
    auto r = recorded.find(w.name);
    incumbent[w.name] = core::matching_config(facts, r != recorded.end() ? r->second : std::map<std::string, int64_t>{});
  }
  return core::resource_diff(v.compiler_facts, timed_configs(v), facts, incumbent, workloads);
}

std::string resource_loss_note(const core::ResourceDiff& d) {
  std::string out;
  for (const auto& l : d.losses) out += (out.empty() ? "resources lost against the incumbent: " : "; ") + l;
  return out;
}

}  // namespace kwb::library
