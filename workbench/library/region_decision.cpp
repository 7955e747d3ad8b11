#include "library/region_decision.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kwb::library {

namespace {

bool listed_in(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string share_label(const RegionShare& s) {
  return s.incumbent ? s.incumbent->region.text() + " (" + s.incumbent->kernel + ")" : "no incumbent";
}

}  // namespace

std::vector<RegionShare> shares_of(const Dispatch& d, const std::string& op, const std::string& variant,
                                   const std::string& backend, const std::string& device_class,
                                   const std::vector<const core::Workload*>& workloads) {
  std::vector<RegionShare> out;
  for (const auto* w : workloads) {
    const DispatchEntry* e = d.incumbent(op, variant, backend, device_class, w->params);
    auto it = std::find_if(out.begin(), out.end(), [&](const RegionShare& s) { return s.incumbent == e; });
    if (it == out.end()) it = out.insert(out.end(), RegionShare{e, {}});
    it->workloads.push_back(w->name);
  }
  return out;
}

std::vector<const DispatchEntry*> regions_without_workloads(const Dispatch& d, const std::string& op,
                                                            const std::string& variant, const std::string& backend,
                                                            const std::string& device_class,
                                                            const std::vector<RegionShare>& shares) {
  std::vector<const DispatchEntry*> out;
  const auto serving = d.serving(op, variant, backend, device_class);
  for (size_t i = 0; i < serving.size(); ++i) {
    const DispatchEntry* e = serving[i];
    // A region the lookup never reaches (an entry before it covers it: a promotion for this class
    // shadows the same region of "any") is not one a candidate could be compared in.
    const bool shadowed = std::any_of(serving.begin(), serving.begin() + i,
                                      [&](const DispatchEntry* before) { return before->region.covers(e->region); });
    if (e->region.whole() || shadowed) continue;
    if (std::none_of(shares.begin(), shares.end(), [&](const RegionShare& s) { return s.incumbent == e; }))
      out.push_back(e);
  }
  return out;
}

core::Decision merge_regions(const std::vector<RegionDecision>& regions) {
  core::Decision out;
  std::string won, lost;
  for (const auto& r : regions) {
    const std::string what = share_label(r.share);
    if (!r.decision) {
      lost += fmt::format("{}{}: {}", lost.empty() ? "" : "; ", what, r.note);
      continue;
    }
    const core::Decision& d = *r.decision;
    for (const auto& n : d.regressions) out.regressions.push_back(n);
    for (const auto& n : d.undecided) out.undecided.push_back(n);
    if (d.promotable) {
      for (const auto& n : d.wins) out.wins.push_back(n);
      won += fmt::format("{}{}: {}", won.empty() ? "" : "; ", what, d.reason);
    } else {
      lost += fmt::format("{}{}: {}", lost.empty() ? "" : "; ", what, d.reason);
    }
  }
  out.promotable = !won.empty();
  if (out.promotable)
    out.reason = "promotable in region " + won + (lost.empty() ? "" : "; not in region " + lost);
  else
    out.reason = "not promotable in any region: " + lost;
  return out;
}

bool region_won(const std::vector<std::string>& workloads, const core::Verdict& v) {
  if (workloads.empty() || !v.summary.decision) return false;
  const core::Decision& d = *v.summary.decision;
  bool a_win = false;
  double log_sum = 0;
  for (const auto& name : workloads) {
    if (listed_in(d.regressions, name) || listed_in(d.undecided, name)) return false;
    a_win = a_win || listed_in(d.wins, name);
    auto r = std::find_if(v.workloads.begin(), v.workloads.end(),
                          [&](const core::WorkloadResult& x) { return x.kind == "bench" && x.name == name; });
    if (r == v.workloads.end() || !r->vs_incumbent || !(*r->vs_incumbent > 0)) return false;
    log_sum += std::log(*r->vs_incumbent);
  }
  return a_win && std::exp(log_sum / double(workloads.size())) > 1.0;
}

}  // namespace kwb::library
