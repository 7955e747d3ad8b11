#pragma once
// Where a timed bench workload sits under the roofs (docs/verdict.md "Feedback"): its arithmetic
// intensity (the spec's roofline flops per byte), which roof binds at that intensity (memory
// while flops / peak flops < bytes / peak bandwidth, else compute), the share of that roof the
// median reached and the headroom left (100 - that share; negative when the workload ran faster
// than the roof allows, which happens when its data stayed in a cache).
#include <string>
#include <vector>

#include "core/feedback.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"

namespace kwb::eval {

// The spec's roofline of `w` (the variant's bytes and flops at its params) and the share of
// `copy_bytes_per_s` (the calibrated copy bandwidth) a median of `median_ns` reached (pct_bw;
// unset where either is not positive). Both backends' benchmark stages start from it.
core::RooflineResult workload_roofline(const core::Variant& variant, const core::Workload& w, double median_ns,
                                       double copy_bytes_per_s);

struct Peaks {
  std::string name;          // "calibrated" | "data_sheet"
  double bytes_per_s = 0;    // 0: unknown (no position against these peaks)
  double flops_per_s = 0;    // 0: unknown (the memory roof is the only one)
};

// The position against each set of peaks with a known bandwidth, for a workload that moved
// `roofline.bytes` and did `roofline.flops` in `median_ns`.
core::WorkloadFeedback roofline_feedback(const std::string& config, const core::RooflineResult& roofline,
                                         double median_ns, const std::vector<Peaks>& peaks);

}  // namespace kwb::eval
