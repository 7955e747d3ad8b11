#pragma once
// The resource diff of a compared candidate (docs/verdict.md "Resources"): its compiler facts
// beside those of the incumbent it was timed against, each side under the config it times each
// bench workload with. The incumbent's facts come from its evaluation in the same comparison
// (compiled by the same toolchain for the same architecture, under the candidate's spec
// version), so they are never stale and cost nothing: the comparison compiles it anyway.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/resource_diff.hpp"
#include "core/verdict.hpp"

namespace kwb::library {

// Per bench workload that `v` timed, the config it reports the time of (feedback.config).
std::map<std::string, std::string> timed_configs(const core::Verdict& v);

// `v`'s resources beside the incumbent's `facts` on the bench workloads `v` timed. The incumbent's
// config per workload: `timed` where its own evaluation timed the workload, else the values it
// was recorded with (`recorded`: its tuning records or dispatch.json's configs) matched as its
// evaluation matches them, else its first config. Null where either side has no compiler facts.
std::optional<core::ResourceDiff> resources_beside(const core::Verdict& v, const std::vector<core::ConfigFacts>& facts,
                                                   const std::map<std::string, std::string>& timed,
                                                   const std::map<std::string, std::map<std::string, int64_t>>& recorded);

// What the decision's reason says of the losses, "" where there are none: "resources lost
// against the incumbent: k: occupancy 16 → 12 blocks/SM, ... on n1M; ...". It never changes
// whether the candidate is promotable.
std::string resource_loss_note(const core::ResourceDiff& d);

}  // namespace kwb::library
