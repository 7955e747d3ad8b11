#include "app/verdict_table.hpp"

#include <fmt/format.h>

namespace kwb::app {

namespace {

std::string params_text(const std::map<std::string, int64_t>& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

std::string time_text(double ns) {
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.2f} us", ns / 1e3);
  return fmt::format("{:.0f} ns", ns);
}

}  // namespace

std::string render_verdict(const core::Verdict& v) {
  std::string out = fmt::format("{}  {} {}/{} on {}\n", core::status_name(v.status), v.candidate, v.op, v.variant,
                                v.device);
  out += fmt::format("  reason: {}\n", v.reason);
  for (const auto& d : v.diagnostics)
    out += fmt::format("  {}:{}:{}: {}: {}\n", d.file, d.line, d.col, d.severity, d.message);
  if (!v.workloads.empty()) {
    out += fmt::format("  {:<6} {:<26} {:<28} {:>7} {:>10} {:>11} {:>11} {:>7} {:>7} {:>8}\n", "kind", "workload",
                       "params", "checks", "max_rel", "median", "min", "stdev", "%bw", "vs inc.");
    for (const auto& w : v.workloads) {
      std::string med = "-", mn = "-", sd = "-", bw = "-", inc = "-";
      if (w.vs_incumbent) inc = fmt::format("{:.3f}x", *w.vs_incumbent);
      if (w.time) {
        med = time_text(w.time->median_ns);
        mn = time_text(w.time->min_ns);
        sd = fmt::format("{:.1f}%", w.time->stdev_pct);
      }
      if (w.roofline && w.roofline->pct_bw) bw = fmt::format("{:.0f}%", *w.roofline->pct_bw);
      out += fmt::format("  {:<6} {:<26} {:<28} {:>7} {:>10.2e} {:>11} {:>11} {:>7} {:>7} {:>8}{}\n", w.drawn ? "drawn" : w.kind, w.name,
                         params_text(w.params), w.checks, w.max_rel_err, med, mn, sd, bw, inc,
                         w.correct ? "" : "  WRONG");
    }
  }
  for (const auto& w : v.workloads)
    if (w.comparison)
      out += fmt::format("  vs incumbent {:<14} {:<9} {:.3f}x [{:.3f}, {:.3f}] ({:.1f}% interval, {} blocks, {} samples "
                         "a side, {})\n",
                         w.name, w.comparison->label, w.comparison->ratio, w.comparison->low, w.comparison->high,
                         w.comparison->confidence * 100, w.comparison->blocks, w.comparison->samples,
                         w.comparison->stop_reason);
  if (v.summary.incumbent)
    out += fmt::format("  incumbent: {} at {:.12} ({}): {} geomean, {}\n", v.summary.incumbent->kernel,
                       v.summary.incumbent->commit, v.summary.incumbent->device_class,
                       v.summary.geomean_vs_incumbent ? fmt::format("{:.3f}x", *v.summary.geomean_vs_incumbent) : "-",
                       v.summary.decision ? v.summary.decision->reason
                                          : (v.summary.beats_incumbent.value_or(false) ? "beats it" : "not compared"));
  if (v.summary.machine)
    out += fmt::format("  machine: {}{}\n", v.summary.machine->detail, v.summary.machine->busy ? " (busy)" : "");
  out += fmt::format("  toolchain: {}\n  wall: {:.0f} ms", v.toolchain, v.summary.wall_ms);
  for (const auto& [k, ms] : v.summary.stage_ms) out += fmt::format(", {} {:.0f} ms", k, ms);
  out += "\n";
  return out;
}

}  // namespace kwb::app
