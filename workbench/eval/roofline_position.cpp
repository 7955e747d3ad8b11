#include "eval/roofline_position.hpp"

#include <algorithm>

#include "spec/expr.hpp"

namespace kwb::eval {

core::RooflineResult workload_roofline(const core::Variant& variant, const core::Workload& w, double median_ns,
                                       double copy_bytes_per_s) {
  core::RooflineResult r;
  spec::Env env(w.params.begin(), w.params.end());
  if (auto b = spec::evaluate(variant.roofline.bytes, env)) r.bytes = double(*b);
  if (auto f = spec::evaluate(variant.roofline.flops, env)) r.flops = double(*f);
  if (median_ns > 0 && copy_bytes_per_s > 0) r.pct_bw = r.bytes / (median_ns * 1e-9) / copy_bytes_per_s * 100.0;
  return r;
}

core::WorkloadFeedback roofline_feedback(const std::string& config, const core::RooflineResult& roofline,
                                         double median_ns, const std::vector<Peaks>& peaks) {
  core::WorkloadFeedback f;
  f.config = config;
  if (roofline.bytes > 0) f.intensity = roofline.flops / roofline.bytes;
  const double seconds = median_ns * 1e-9;
  if (seconds <= 0) return f;
  for (const auto& p : peaks) {
    if (p.bytes_per_s <= 0) continue;
    core::RooflinePosition r;
    r.peaks = p.name;
    r.bytes_per_s = p.bytes_per_s;
    const double memory_s = roofline.bytes / p.bytes_per_s;
    double compute_s = 0;
    if (p.flops_per_s > 0) {
      r.flops_per_s = p.flops_per_s;
      r.ridge_intensity = p.flops_per_s / p.bytes_per_s;
      compute_s = roofline.flops / p.flops_per_s;
    }
    r.bound = compute_s > memory_s ? "compute" : "memory";
    r.pct_of_roof = std::max(memory_s, compute_s) / seconds * 100.0;
    r.headroom_pct = 100.0 - r.pct_of_roof;
    f.roofline.push_back(std::move(r));
  }
  return f;
}

}  // namespace kwb::eval
