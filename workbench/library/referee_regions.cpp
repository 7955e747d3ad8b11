// The comparison where the op's incumbents hold shape regions (docs/library.md "Shape regions"):
// each bench workload is compared with the incumbent whose region holds its params, region by
// region (each region's incumbent prepared and timed interleaved on that region's workloads, as
// compare_one() does for one), and each region is decided alone; the candidate is promotable where
// it wins a region, and promotion writes it for those regions only (promotion.cpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "library/referee.hpp"
#include "library/region_decision.hpp"
#include "util/hash.hpp"

namespace kwb::library {

namespace {

std::string names_joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

void Referee::compare(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate,
                      const Incumbent& incumbent, const PrepareFn& prepare) {
  if (incumbent.regions.empty()) return compare_one(cand, v, candidate, incumbent, prepare);
  compare_regions(cand, v, candidate, incumbent, prepare);
}

std::optional<Incumbent> Referee::settle_regions(const core::Candidate& cand, core::Verdict& v, const core::Spec& spec,
                                                 const Dispatch& dispatch, const std::string& commit) {
  auto note = [&](const std::string& text) { v.reason += "; " + text; };
  const std::string dc = device_class(v);
  const auto timed = timed_workloads(spec, v);
  if (timed.empty()) return note("no bench workload was timed: not compared with the library's regions"), std::nullopt;
  const auto shares = shares_of(dispatch, v.op, v.variant, v.backend, dc, timed);
  const std::string cand_sha = util::sha256_hex(cand.source);
  Incumbent all;
  for (const auto* e : regions_without_workloads(dispatch, v.op, v.variant, v.backend, dc, shares))
    all.notes.push_back(fmt::format("region {} ({}) has no bench workload: no candidate can be compared or promoted "
                                    "there", e->region.text(), e->kernel));
  for (const auto& s : shares) {
    if (!s.incumbent) {
      all.notes.push_back(fmt::format("no incumbent's region holds {}: not compared there, and not promotable there "
                                      "(a region takes its bounds from its incumbent)", names_joined(s.workloads)));
      continue;
    }
    const DispatchEntry& e = *s.incumbent;
    auto source = m_repo.read(e.kernel, commit);
    if (!source) return note("not compared with the library: " + source.error().what()), std::nullopt;
    Incumbent inc{e, {e.kernel, commit, util::sha256_hex(*source), e.device_class, false}, *source,
                  kernel_flags(m_repo, e.kernel, commit), {}, s.workloads, {}};
    if (inc.ref.source_sha256 == cand_sha) {
      all.notes.push_back(fmt::format("region {}: identical to its incumbent {}", e.region.text(), e.kernel));
      continue;
    }
    all.regions.push_back(std::move(inc));
  }
  if (all.regions.empty()) {
    v.summary.beats_incumbent = false;
    v.summary.decision = core::Decision{false, "not promotable in any region: " + names_joined(all.notes), {}, {}, {}};
    note("not compared with the library's regions: " + names_joined(all.notes));
    return std::nullopt;
  }
  const Incumbent& first = all.regions.front();
  all.entry = first.entry, all.ref = first.ref, all.source = first.source, all.flags = first.flags;
  v.summary.incumbent = all.ref;
  return all;
}

void Referee::compare_regions(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate,
                              const Incumbent& incumbents, const PrepareFn& prepare) {
  std::vector<RegionDecision> decided;
  std::vector<core::IncumbentRef> refs;  // each decided region's incumbent as its comparison read it
  double decide_ms = 0, log_sum = 0;
  int compared = 0;
  std::string notes;
  for (const auto& inc : incumbents.regions) {
    core::Verdict part = v;  // this region's workloads alone
    for (auto& r : part.workloads)
      if (r.kind == "bench" && std::find(inc.workloads.begin(), inc.workloads.end(), r.name) == inc.workloads.end())
        r.time.reset();
    part.summary.stage_ms.erase("decide");
    compare_one(cand, part, candidate, inc, prepare);
    decide_ms += part.summary.stage_ms["decide"];
    const std::string region = inc.entry.region.text();
    if (part.status != v.status) {  // the candidate failed during the comparison: that is its verdict
      v.status = part.status;
      v.reason = part.reason;
      v.summary.beats_incumbent = false;
      v.summary.decision = core::Decision{false, "region " + region + ": " + v.reason, {}, {}, {}};
      break;
    }
    notes += "; region " + region + ":" + part.reason.substr(std::min(part.reason.size(), v.reason.size() + 1));
    RegionDecision rd{RegionShare{&inc.entry, inc.workloads}, std::nullopt, ""};
    const bool timed = part.summary.decision && !part.summary.decision->reason.empty() && part.summary.geomean_vs_incumbent;
    if (timed) {
      rd.decision = part.summary.decision;
    } else {
      rd.note = part.summary.decision ? part.summary.decision->reason : "not compared (see the reason)";
    }
    for (auto& r : v.workloads)
      for (const auto& p : part.workloads)
        if (r.kind == "bench" && p.name == r.name && p.comparison &&
            std::find(inc.workloads.begin(), inc.workloads.end(), r.name) != inc.workloads.end()) {
          r.vs_incumbent = p.vs_incumbent;
          r.comparison = p.comparison;
          log_sum += std::log(*p.vs_incumbent);
          ++compared;
        }
    if (!v.summary.resources) v.summary.resources = part.summary.resources;
    v.summary.machine = part.summary.machine;  // each part's combines the one before it
    refs.push_back(part.summary.incumbent.value_or(inc.ref));
    decided.push_back(std::move(rd));
  }
  v.summary.stage_ms["decide"] = decide_ms;
  v.summary.wall_ms += decide_ms;
  if (v.status != core::Status::accepted) return;
  core::Decision d = merge_regions(decided);
  for (const auto& n : incumbents.notes) d.reason += "; " + n;
  // The verdict names one incumbent: the first region's it won, else the first region's.
  size_t shown = 0;
  for (size_t i = decided.size(); i-- > 0;)
    if (decided[i].decision && decided[i].decision->promotable) shown = i;
  v.summary.incumbent = refs.empty() ? incumbents.regions.front().ref : refs[shown];
  v.summary.incumbent->remeasured = true;
  v.summary.geomean_vs_incumbent = compared ? std::exp(log_sum / compared) : 1.0;
  v.summary.beats_incumbent = d.promotable;
  v.summary.decision = d;
  v.reason += notes;
  for (const auto& n : incumbents.notes) v.reason += "; " + n;
}

}  // namespace kwb::library
