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

// "memory-bound at 0.25 flop/B: 62% of the calibrated roof (38% headroom), 55% of the data sheet's"
std::string roofline_text(const core::WorkloadFeedback& f) {
  if (f.roofline.empty()) return "";
  const auto& first = f.roofline.front();
  std::string s = first.bound + "-bound";
  if (f.intensity) s += fmt::format(" at {:.3g} flop/B", *f.intensity);
  for (size_t i = 0; i < f.roofline.size(); ++i) {
    const auto& r = f.roofline[i];
    std::string peaks = r.peaks == "data_sheet" ? "data-sheet" : r.peaks;
    s += fmt::format("{} {:.0f}% of the {} {} roof ({:.0f}% headroom)", i == 0 ? ":" : ",", r.pct_of_roof, peaks,
                     r.bound, r.headroom_pct);
  }
  return s;
}

std::string loads_text(const core::InstructionMix& m) {
  return fmt::format("ld.global v4/v2/scalar {}/{}/{}, st.global {}/{}/{}{}{}", m.ld_global_v4, m.ld_global_v2,
                     m.ld_global, m.st_global_v4, m.st_global_v2, m.st_global,
                     m.cp_async ? fmt::format(", cp.async {}", m.cp_async) : "",
                     m.tensor_cores() ? fmt::format(", tensor cores (mma {}, wgmma {})", m.mma, m.wgmma)
                                      : ", no tensor cores");
}

// The SASS highlights: global access widths, local memory (spills or stack arrays), tensor cores.
std::string sass_text(const core::SassMix& m) {
  return fmt::format("LDG 128/64/32-bit {}/{}/{}, STG {}/{}/{}{}{}{}{}", m.ldg_128, m.ldg_64, m.ldg_32, m.stg_128, m.stg_64,
                     m.stg_32, m.ldgsts ? fmt::format(", LDGSTS {}", m.ldgsts) : "",
                     m.tma ? fmt::format(", TMA {}", m.tma) : "",
                     m.ldl + m.stl ? fmt::format(", local memory LDL/STL {}/{}", m.ldl, m.stl) : "",
                     m.tensor_cores() ? fmt::format(", tensor cores (HMMA {}, HGMMA {}, IMMA {}, other {})", m.hmma,
                                                    m.hgmma, m.imma, m.other_mma)
                                      : ", no tensor cores");
}

std::string facts_text(const core::ConfigFacts& c, const core::KernelFacts& k) {
  std::string s = fmt::format("  facts {} {}: {} regs, spills {}/{} B (st/ld), stack {} B, smem {} B, max {} threads",
                              c.config, k.kernel, k.registers, k.spill_store_bytes, k.spill_load_bytes,
                              k.stack_frame_bytes, k.static_smem_bytes, k.max_threads_per_block);
  if (k.runner)
    s += fmt::format(" (driver: {} regs, {} B local, {} B smem, max {})", k.runner->registers, k.runner->local_bytes,
                     k.runner->static_smem_bytes, k.runner->max_threads_per_block);
  if (c.source.starts_with("nvrtc")) s += "\n    PTX: " + loads_text(k.instructions);
  if (k.sass) s += "\n    SASS: " + sass_text(*k.sass);
  s += "\n";
  for (const auto& o : k.occupancy)
    s += fmt::format("    occupancy {:.0f}% at {} threads{}: {} blocks/SM ({}){}\n", o.pct, o.threads,
                     o.dynamic_smem_bytes ? fmt::format(" + {} B smem", o.dynamic_smem_bytes) : "", o.blocks_per_sm,
                     o.limited_by,
                     o.runner_blocks_per_sm ? fmt::format(", driver {}", *o.runner_blocks_per_sm) : "");
  return s;
}

// The lines of a text, without their line ends.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) out.push_back(text.substr(at, end - at));
  if (at < text.size()) out.push_back(text.substr(at));
  return out;
}

// One profiled launch: the speed-of-light and occupancy figures on a line, then its findings.
std::string profile_text(const std::string& workload, const core::KernelProfile& k) {
  auto pct = [](const std::optional<double>& x) { return x ? fmt::format("{:.0f}%", *x) : std::string("-"); };
  std::string out = fmt::format("  ncu {:<23} {}: DRAM {} SM {} occupancy {} of {}{}\n", workload, k.kernel,
                                pct(k.dram_sol_pct), pct(k.sm_sol_pct), pct(k.achieved_occupancy_pct),
                                pct(k.theoretical_occupancy_pct),
                                k.occupancy_limiter.empty() ? "" : " (" + k.occupancy_limiter + ")");
  for (const auto& f : k.findings) out += "      " + f + "\n";
  return out;
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
    if (w.feedback && !w.feedback->roofline.empty())
      out += fmt::format("  roofline {:<18} {}{}\n", w.name, roofline_text(*w.feedback),
                         w.feedback->config != "default" ? " [" + w.feedback->config + "]" : "");
  for (const auto& c : v.compiler_facts) {
    for (const auto& k : c.kernels) out += facts_text(c, k);
    if (!c.sass_note.empty()) out += fmt::format("    SASS {}: {}\n", c.config, c.sass_note);
  }
  if (v.profile) out += fmt::format("  profile: {}: {}\n", v.profile->status, v.profile->reason);
  for (const auto& w : v.workloads)  // Nsight Compute's profile, when one was taken (docs/profiles.md)
    if (w.feedback)
      for (const auto& k : w.feedback->profile) out += profile_text(w.name, k);
  if (v.sanitizer) out += fmt::format("  sanitizer: {}: {}\n", v.sanitizer->status, v.sanitizer->reason);
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
  if (v.summary.resources)  // beside the incumbent's (docs/verdict.md "Resources")
    for (const auto& line : lines_of(core::resource_table(*v.summary.resources))) out += "  " + line + "\n";
  if (v.summary.machine)
    out += fmt::format("  machine: {}{}\n", v.summary.machine->detail, v.summary.machine->busy ? " (busy)" : "");
  out += fmt::format("  toolchain: {}\n  wall: {:.0f} ms", v.toolchain, v.summary.wall_ms);
  for (const auto& [k, ms] : v.summary.stage_ms) out += fmt::format(", {} {:.0f} ms", k, ms);
  out += "\n";
  return out;
}

}  // namespace kwb::app
