// One pass (docs/library.md "One pass"): the comparison that follows a verdict whose benchmark
// stage was timed interleaved with a warm incumbent; and what both kinds of comparison share
// (how they are timed and labelled, where the incumbent is found).
#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/timing_names.hpp"
#include "eval/stats.hpp"
#include "library/device_class.hpp"
#include "library/referee.hpp"
#include "library/resources_beside.hpp"
#include "library/snapshot.hpp"
#include "store/tuning_repository.hpp"
#include "util/clock.hpp"
#include "util/hash.hpp"
#include "util/random.hpp"

namespace kwb::library {

namespace {

// A failure of the incumbent's that says its code no longer meets the spec (it loses its place);
// anything else (no device, an error, a limit hit under load) says this machine could not run it.
bool about_the_code(core::Status s) {
  using S = core::Status;
  return s == S::incorrect || s == S::compile_error || s == S::rejected || s == S::crashed || s == S::sandbox_violation;
}

}  // namespace

eval::PairedConfig Referee::paired_config(const std::string& device_key) const {
  eval::PairedConfig cfg;
  const bool gpu = device_key.rfind("cuda", 0) == 0;
  cfg.budget_ms = m_policy.decide_budget_ms;
  cfg.min_blocks = m_policy.min_blocks;
  cfg.confidence = m_policy.confidence;
  if (gpu) {
    cfg.precision_pct = m_policy.gpu_precision_pct;
    // GPU calls take microseconds: blocks of ~5 ms keep a block pair's round trips a small part
    // of it while letting a comparison reach its looks in a fraction of a second.
    cfg.block_ms = m_policy.gpu_block_ms;
  }
  cfg.order_seed = util::secret_seed();
  return cfg;
}

eval::PairedRules Referee::paired_rules(const std::string& device_key) const {
  const Policy policy = policy_for(m_policy, device_key);
  return {[policy](double lo, double hi) { return label_of(lo, hi, policy); },
          [policy](const core::Comparison& c) { return needs_more_blocks(c, policy); }};
}

std::optional<Incumbent> Referee::find_incumbent(const core::Candidate& cand, const std::string& device_class) {
  auto snap = read_head(m_repo);
  if (!snap) return std::nullopt;
  // One pass times one warm incumbent: where the incumbents hold regions, each region's is
  // compared after the verdict instead (referee_regions.cpp).
  if (snap->dispatch.regional(cand.op, cand.variant, cand.backend, device_class)) return std::nullopt;
  const DispatchEntry* entry = snap->dispatch.incumbent(cand.op, cand.variant, cand.backend, device_class);
  if (!entry) return std::nullopt;
  auto source = m_repo.read(entry->kernel, snap->commit);
  if (!source) return std::nullopt;
  Incumbent inc{*entry, {entry->kernel, snap->commit, util::sha256_hex(*source), entry->device_class, true}, *source,
                kernel_flags(m_repo, entry->kernel, snap->commit)};
  if (inc.ref.source_sha256 == util::sha256_hex(cand.source)) return std::nullopt;
  return inc;
}

void Referee::compare_paired(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& candidate,
                             const Incumbent& incumbent, eval::PairedBenchmark& bench) {
  const auto start = std::chrono::steady_clock::now();
  struct Finish {  // the comparison's own time, after the verdict, whichever way it ends
    core::Verdict& v;
    std::chrono::steady_clock::time_point start;
    ~Finish() {
      double ms = util::ms_since(start);
      v.summary.stage_ms["decide"] = ms;
      v.summary.wall_ms += ms;
    }
  } finish{v, start};
  auto note = [&](const std::string& text) { v.reason += "; " + text; };
  auto progress = [&](const std::string& detail) {
    candidate.report(eval::StageEvent{eval::Stage::decide, false, detail, std::nullopt, /*note=*/true});
  };
  const std::string& kernel = incumbent.entry.kernel;
  v.summary.incumbent = incumbent.ref;
  v.summary.incumbent->remeasured = true;
  const core::Spec* spec = candidate.spec();
  if (!spec) return note("not compared with " + kernel + ": no open evaluation of the candidate to time");
  const Policy policy = policy_for(m_policy, candidate.device_key());
  const eval::PairedConfig& cfg = bench.config();
  std::map<std::string, std::map<std::string, int64_t>> recorded;  // the configs the warm incumbent is timed with
  for (const auto& c : incumbent.entry.configs) recorded[c.workload] = c.tune;
  v.summary.resources = resources_beside(v, bench.incumbent_facts(), {}, recorded);
  std::unique_ptr<eval::TimingSubject> cand_side;
  eval::MachineWatch watch;
  std::vector<WorkloadComparison> comparisons;
  core::Verdict iv = v;  // the incumbent's times from its blocks, for its tuning records
  for (auto& r : iv.workloads) r.time.reset();
  iv.toolchain = base_toolchain(v.toolchain, cand.flags);
  for (const auto& f : incumbent.flags) iv.toolchain += " " + f;
  for (const auto* w : timed_workloads(*spec, v)) {
    if (auto failed = bench.incumbent_failures().find(w->name); failed != bench.incumbent_failures().end()) {
      const auto& f = failed->second;
      const std::string what = std::string(core::status_name(f.status)) + ": " + f.reason;
      if (!about_the_code(f.status))
        return note("not compared: the incumbent " + kernel + " could not be timed on " + w->name + " (" + what + ")");
      v.summary.beats_incumbent = true;
      v.summary.decision = core::Decision{true, "the incumbent is no longer accepted", {}, {}, {}};
      return note("the incumbent " + kernel + " is no longer accepted (" + what + ")");
    }
    auto found = bench.series().find(w->name);
    if (found == bench.series().end())  // timed alone (several configs): the comparison from its first block
      found = bench.series().emplace(w->name, eval::PairedSeries(cfg.confidence, bench.rules(), cfg.precision_pct,
                                                                 cfg.min_blocks)).first;
    eval::PairedSeries& series = found->second;
    core::Comparison c = series.comparison();
    c.stop_reason = core::comparison_stop_name(core::ComparisonStop::settled);
    if (!series.settled()) {
      if (!cand_side) cand_side = candidate.timing_subject("the candidate");
      if (!cand_side) return note("not compared with " + kernel + ": the candidate's runner could not be kept open");
      auto shown = [&](const core::Comparison& now) {
        watch.sample();
        progress(fmt::format("{}: {:.3f}x [{:.3f}, {:.3f}] {} after {} blocks", w->name, now.ratio, now.low, now.high,
                             now.label, now.blocks));
      };
      auto more = eval::compare_interleaved(*cand_side, bench.incumbent(), *w, util::secret_seed(), cfg, series, shown);
      if (!more) {
        if (more.error().candidate) {
          v.status = more.error().failure.status;
          v.reason = "during the interleaved comparison with the incumbent on " + w->name + ": " + more.error().failure.reason;
          v.summary.beats_incumbent = false;
          v.summary.decision = core::Decision{false, v.reason, {}, {}, {}};
          return;
        }
        const auto& f = more.error().failure;
        if (!about_the_code(f.status))
          return note("not compared: the incumbent " + kernel + " failed during the interleaved timing on " + w->name +
                      " (" + f.reason + ")");
        v.summary.beats_incumbent = true;
        v.summary.decision = core::Decision{true, "the incumbent is no longer accepted", {}, {}, {}};
        return note("the incumbent " + kernel + " is no longer accepted (" + std::string(core::status_name(f.status)) +
                    ": " + f.reason + ")");
      }
      c = *more;
    } else {
      progress(fmt::format("{}: {:.3f}x [{:.3f}, {:.3f}] {} after {} blocks (settled in the benchmark stage)", w->name,
                           c.ratio, c.low, c.high, c.label, c.blocks));
    }
    for (auto& r : v.workloads)
      if (r.kind == "bench" && r.name == w->name) {
        r.vs_incumbent = c.ratio;
        r.comparison = c;
      }
    for (auto& r : iv.workloads)
      if (r.kind == "bench" && r.name == w->name && !series.incumbent_samples().empty())
        r.time = eval::summarize(series.incumbent_samples());
    comparisons.push_back({w->name, c});
  }
  store::TuningRepository tuning(m_db);
  const std::string by = "library:" + kernel + "@" + incumbent.ref.commit.substr(0, 12);
  if (auto r = tuning.put(records_of(iv, incumbent.ref.source_sha256, by)); !r)
    spdlog::warn("candidate {}: the incumbent {}'s tuning records were not stored: {}", cand.id, kernel, r.error().what());
  conclude(v, comparisons, policy, kernel, watch);
}

}  // namespace kwb::library
