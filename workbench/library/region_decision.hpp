#pragma once
// The decision per shape region (docs/library.md "Shape regions"): which incumbent each bench
// workload is compared with, and what the candidate won, region by region. Pure functions of the
// dispatch, the workloads and the verdict, so the referee (which decides) and the promotion (which
// reads the decision back from the stored verdict) agree.
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "library/dispatch.hpp"

namespace kwb::library {

// The bench workloads one incumbent serves (in spec order); a null incumbent: no entry holds them.
struct RegionShare {
  const DispatchEntry* incumbent = nullptr;
  std::vector<std::string> workloads;
};

// The workloads grouped by the incumbent the dispatch picks for their params on `device_class`,
// in the order of their first workload.
std::vector<RegionShare> shares_of(const Dispatch& d, const std::string& op, const std::string& variant,
                                   const std::string& backend, const std::string& device_class,
                                   const std::vector<const core::Workload*>& workloads);

// The regional entries serving this device that no share holds: regions without a bench workload,
// where no candidate can be compared, so none can be promoted.
std::vector<const DispatchEntry*> regions_without_workloads(const Dispatch& d, const std::string& op,
                                                            const std::string& variant, const std::string& backend,
                                                            const std::string& device_class,
                                                            const std::vector<RegionShare>& shares);

// One region's outcome: its share and the decision rule's verdict on its comparisons (none: it
// was not compared; `note` says why).
struct RegionDecision {
  RegionShare share;
  std::optional<core::Decision> decision;
  std::string note;
};

// The candidate's decision over its regions: promotable where some region's is; `wins` holds the
// wins of the promotable regions only, `regressions` and `undecided` every region's, so that
// region_won() reads each region's outcome back from the stored decision.
core::Decision merge_regions(const std::vector<RegionDecision>& regions);

// Whether the verdict won the region of `workloads` (the decision rule on that region alone, as
// merge_regions recorded it): every one compared, none regressed or undecided, one a win, and the
// geometric mean of their ratios above 1.
bool region_won(const std::vector<std::string>& workloads, const core::Verdict& v);

}  // namespace kwb::library
