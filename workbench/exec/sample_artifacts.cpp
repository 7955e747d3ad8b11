#include "exec/sample_artifacts.hpp"

#include <spdlog/spdlog.h>

namespace kwb::exec {

namespace {

std::string put(store::ObjectStore& objects, const nlohmann::json& artifact, const std::string& candidate,
                const char* what) {
  auto sha = objects.put(artifact.dump());
  if (!sha) {  // the verdict stands without them: it says so by naming none
    spdlog::warn("candidate {}: its {} were not stored: {}", candidate, what, sha.error().what());
    return {};
  }
  return *sha;
}

}  // namespace

void keep_samples(store::ObjectStore& objects, core::Verdict& v) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : v.workloads)
    if (w.time && !w.time->samples_ns.empty())
      workloads.push_back({{"name", w.name}, {"kind", w.kind}, {"params", w.params}, {"clock", w.time->clock},
                           {"interleaved", w.time->interleaved}, {"samples_ns", w.time->samples_ns}});
  if (workloads.empty()) return;
  v.summary.samples_sha256 = put(objects, {{"schema", "kwb.samples.v1"}, {"workloads", workloads}}, v.candidate, "samples");
}

void keep_profile_report(store::ObjectStore& objects, core::Verdict& v) {
  if (!v.profile || v.profile->report.empty()) return;
  if (auto sha = objects.put(v.profile->report))
    v.profile->report_sha256 = *sha;
  else  // the verdict stands without it: it says so by naming none
    spdlog::warn("candidate {}: its ncu report was not stored: {}", v.candidate, sha.error().what());
  v.profile->report.clear();
}

void keep_blocks(store::ObjectStore& objects, core::Verdict& v) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : v.workloads)
    if (w.comparison && !w.comparison->block_ratios.empty())
      workloads.push_back({{"name", w.name}, {"ratios", w.comparison->block_ratios},
                           {"candidate_ns", w.comparison->candidate_samples_ns},
                           {"incumbent_ns", w.comparison->incumbent_samples_ns}});
  if (workloads.empty()) return;
  v.summary.blocks_sha256 = put(objects, {{"schema", "kwb.blocks.v1"}, {"workloads", workloads}}, v.candidate, "blocks");
}

}  // namespace kwb::exec
