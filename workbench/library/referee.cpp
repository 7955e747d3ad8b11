#include "library/referee.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "core/measurement_method.hpp"
#include "eval/machine_state.hpp"
#include "eval/paired_timing.hpp"
#include "library/device_class.hpp"
#include "library/resources_beside.hpp"
#include "library/snapshot.hpp"
#include "util/random.hpp"
#include "util/hash.hpp"
#include "util/clock.hpp"

namespace kwb::library {

std::vector<std::string> kernel_flags(Repository& repo, const std::string& kernel, const std::string& commit) {
  std::vector<std::string> flags;
  auto meta = repo.read(std::filesystem::path(kernel).replace_extension(".json").generic_string(), commit);
  if (!meta) return flags;
  auto j = nlohmann::json::parse(*meta, nullptr, false, true);
  if (j.is_object() && j.contains("flags") && j["flags"].is_array())
    for (const auto& f : j["flags"])
      if (f.is_string()) flags.push_back(f.get<std::string>());
  return flags;
}


util::Result<std::vector<core::Candidate>> incumbents_of(Repository& repo, const std::string& op,
                                                         const std::string& backend) {
  auto snap = read_head(repo);
  if (!snap) return std::unexpected(snap.error());
  std::vector<core::Candidate> out;
  for (const auto& e : snap->dispatch.entries) {
    if (e.op != op || (!backend.empty() && e.backend != backend)) continue;
    auto source = repo.read(e.kernel, snap->commit);
    if (!source) return std::unexpected(source.error());
    out.push_back({"library:" + e.kernel, e.op, e.variant, e.backend, *source,
                   std::filesystem::path(e.kernel).filename().string(), kernel_flags(repo, e.kernel, snap->commit),
                   "retime of " + e.kernel + " (" + e.device_class + ") at " + snap->commit.substr(0, 12)});
  }
  if (out.empty()) return util::fail("op", "the library has no incumbent for op '" + op + "'" +
                                               (backend.empty() ? "" : " and backend " + backend));
  return out;
}

std::string device_class(const core::Verdict& v) {
  if (core::is_backend(v.backend, core::Backend::cpu)) {
    return host_cpu_class();
  }
  auto at = v.device.find("(sm_");
  if (at == std::string::npos) return "any";
  auto end = v.device.find_first_of(",)", at);
  return "cuda-" + v.device.substr(at + 1, end - at - 1);
}

std::string device_class(const core::Verdict& v, const std::string& recorded) {
  const bool cpu = core::is_backend(v.backend, core::Backend::cpu);
  if (!recorded.empty() && recorded.starts_with(cpu ? "cpu-" : "cuda-") && why_not_a_device_class(recorded).empty())
    return recorded;
  return device_class(v);
}

std::string base_toolchain(const std::string& toolchain, const std::vector<std::string>& flags) {
  std::string suffix;
  for (const auto& f : flags) suffix += " " + f;
  if (!suffix.empty() && toolchain.ends_with(suffix)) return toolchain.substr(0, toolchain.size() - suffix.size());
  return toolchain;
}

std::string measured_by_method() { return std::string(KWB_VERSION) + "+" + core::k_measurement_method; }

store::TuningIdentity identity_of(const core::Verdict& v) {
  return {v.device, v.toolchain, measured_by_method(), v.spec_version};
}

std::vector<store::TuningRecord> records_of(const core::Verdict& v, const std::string& source_sha256,
                                            const std::string& measured_by) {
  std::vector<store::TuningRecord> out;
  for (const auto& w : v.workloads) {
    if (w.kind != "bench" || !w.time || w.time->median_ns <= 0 || !w.correct) continue;
    store::TuningRecord r;
    r.op = v.op;
    r.variant = v.variant;
    r.backend = v.backend;
    r.workload = w.name;
    r.params = w.params;
    r.source_sha256 = source_sha256;
    r.identity = identity_of(v);
    r.median_ns = w.time->median_ns;
    r.stderr_pct = w.time->mean_stderr_pct;
    r.samples = w.time->samples;
    r.candidate = measured_by;
    out.push_back(std::move(r));
  }
  return out;
}

// The bench workloads of the spec that the candidate's verdict timed, in spec order.
std::vector<const core::Workload*> timed_workloads(const core::Spec& spec, const core::Verdict& v) {
  std::vector<const core::Workload*> out;
  for (const auto& w : spec.bench_workloads)
    for (const auto& r : v.workloads)
      if (r.kind == "bench" && r.name == w.name && r.time && r.time->median_ns > 0) out.push_back(&w);
  return out;
}


namespace {

using util::ms_since;

}  // namespace

std::optional<Incumbent> Referee::settle(const core::Candidate& cand, core::Verdict& v,
                                         const eval::Evaluation* candidate) {
  if (v.status != core::Status::accepted) return std::nullopt;
  store::TuningRepository tuning(m_db);
  const std::string cand_sha = util::sha256_hex(cand.source);
  if (auto r = tuning.put(records_of(v, cand_sha, cand.id)); !r)
    spdlog::warn("candidate {}: its tuning records were not stored (the leaderboard and export miss them): {}", cand.id,
                 r.error().what());
  auto note = [&](const std::string& text) { v.reason += "; " + text; };
  auto snap = read_head(m_repo);
  if (!snap) return note("not compared with the library: " + snap.error().what()), std::nullopt;
  if (snap->dispatch.regional(v.op, v.variant, v.backend, device_class(v))) {
    const core::Spec* spec = candidate ? candidate->spec() : nullptr;
    if (!spec) return note("not compared with the library: no open evaluation of the candidate to time"), std::nullopt;
    return settle_regions(cand, v, *spec, snap->dispatch, snap->commit);
  }
  const DispatchEntry* entry = snap->dispatch.incumbent(v.op, v.variant, v.backend, device_class(v));
  if (!entry) {
    v.summary.beats_incumbent = true;
    v.summary.decision = core::Decision{true, "no incumbent yet", {}, {}, {}};
    note(fmt::format("no incumbent for {}/{}/{} yet: promoting it would make it the first", v.op, v.variant, v.backend));
    return std::nullopt;
  }
  auto inc_source = m_repo.read(entry->kernel, snap->commit);
  if (!inc_source) return note("not compared with the library: " + inc_source.error().what()), std::nullopt;
  Incumbent inc{*entry, {entry->kernel, snap->commit, util::sha256_hex(*inc_source), entry->device_class, false},
                *inc_source, kernel_flags(m_repo, entry->kernel, snap->commit)};
  v.summary.incumbent = inc.ref;
  if (inc.ref.source_sha256 == cand_sha) {
    v.summary.beats_incumbent = false;
    v.summary.decision = core::Decision{false, "identical to the incumbent", {}, {}, {}};
    note("identical to the incumbent " + entry->kernel);
    return std::nullopt;
  }
  const core::Spec* spec = candidate ? candidate->spec() : nullptr;
  if (!spec) return note("not compared with " + entry->kernel + ": no open evaluation of the candidate to time"), std::nullopt;
  if (timed_workloads(*spec, v).empty())
    return note("no bench workload was timed: not compared with " + entry->kernel), std::nullopt;
  return inc;
}

void Referee::judge(const core::Candidate& cand, core::Verdict& v, eval::Evaluation* candidate,
                    const PrepareFn& prepare) {
  if (auto inc = settle(cand, v, candidate); inc && candidate) compare(cand, v, *candidate, *inc, prepare);
}

void Referee::compare_one(const core::Candidate& cand, core::Verdict& v, eval::Evaluation& evaluation,
                          const Incumbent& incumbent_ref, const PrepareFn& prepare) {
  eval::Evaluation* candidate = &evaluation;
  const auto start = std::chrono::steady_clock::now();
  struct Finish {  // the decide stage's time, whichever way it ends
    core::Verdict& v;
    std::chrono::steady_clock::time_point start;
    ~Finish() {
      double ms = ms_since(start);
      v.summary.stage_ms["decide"] = ms;
      v.summary.wall_ms += ms;
    }
  } finish{v, start};
  store::TuningRepository tuning(m_db);
  auto note = [&](const std::string& text) { v.reason += "; " + text; };
  auto progress = [&](const std::string& detail) {
    candidate->report(eval::StageEvent{eval::Stage::decide, false, detail, std::nullopt, /*note=*/true});
  };
  const DispatchEntry* entry = &incumbent_ref.entry;
  const std::string* head = &incumbent_ref.ref.commit;
  core::IncumbentRef ref = incumbent_ref.ref;
  v.summary.incumbent = ref;
  const core::Spec* spec = candidate->spec();
  auto workloads = timed_workloads(*spec, v);

  // The incumbent's records under the identity it would be measured with here and now: those
  // missing are timed in its own benchmark stage (for the leaderboard; the decision does not
  // use them).
  const auto& flags = incumbent_ref.flags;
  store::TuningIdentity inc_id{v.device, base_toolchain(v.toolchain, cand.flags), measured_by_method(), v.spec_version};
  for (const auto& f : flags) inc_id.toolchain += " " + f;
  if (auto r = tuning.mark_stale_except(v.op, v.variant, v.backend, ref.source_sha256, inc_id); !r)
    spdlog::warn("candidate {}: stale tuning records of {} not marked: {}", cand.id, entry->kernel, r.error().what());
  auto records = tuning.current(v.op, v.variant, v.backend, ref.source_sha256, inc_id);
  std::vector<std::string> missing;
  for (const auto* w : workloads)
    if (!records || !records->contains(w->name)) missing.push_back(w->name);
  if (missing.empty()) missing.push_back(eval::EvalOptions::k_no_bench);

  progress("preparing the incumbent " + entry->kernel);
  core::Candidate ic{"library:" + entry->kernel, v.op, v.variant, v.backend, incumbent_ref.source, entry->kernel, flags,
                     "incumbent, timed against " + cand.id};
  auto made = prepare(ic, missing);
  if (!made) return note("not compared: the incumbent " + entry->kernel + " could not be prepared (" + made.error().what() + ")");
  eval::Evaluation& incumbent = **made;
  if (records) {  // the configs its records were timed with, for the workloads it does not time now
    std::map<std::string, std::map<std::string, int64_t>> hints;
    for (const auto& [name, r] : *records) hints[name] = r.params;
    incumbent.prefer_configs(hints);
  }
  core::Verdict iv = eval::run_to_verdict(incumbent);
  v.summary.incumbent->remeasured = true;
  // Every comparison evaluates the incumbent again, under the candidate's spec version: that is
  // its re-validation when it was promoted under another version (seeded kernels record none).
  const bool other_version = entry->spec_version > 0 && entry->spec_version != v.spec_version;
  const std::string promoted_under = "promoted under spec v" + std::to_string(entry->spec_version);
  if (other_version && iv.status == core::Status::accepted)
    note(fmt::format("the incumbent {} ({}) was re-validated against spec v{}", entry->kernel, promoted_under,
                     v.spec_version));
  if (iv.status != core::Status::accepted) {
    // Only a verdict about the incumbent's code dethrones it; a machine that could not run it
    // (no device, an error, a limit hit under load) leaves the comparison undecided.
    using S = core::Status;
    bool about_the_code = iv.status == S::incorrect || iv.status == S::compile_error || iv.status == S::rejected ||
                          iv.status == S::crashed || iv.status == S::sandbox_violation;
    std::string what = std::string(core::status_name(iv.status)) + ": " + iv.reason;
    if (!about_the_code) return note("not compared: the incumbent " + entry->kernel + " could not be re-timed (" + what + ")");
    v.summary.beats_incumbent = true;
    v.summary.decision = core::Decision{true, "the incumbent is no longer accepted", {}, {}, {}};
    if (other_version)
      return note(fmt::format("the incumbent {} ({}) does not pass spec v{}: it does not count ({})", entry->kernel,
                              promoted_under, v.spec_version, what));
    return note("the incumbent " + entry->kernel + " is no longer accepted (" + what + ")");
  }
  if (auto r = tuning.put(records_of(iv, ref.source_sha256, "library:" + entry->kernel + "@" + head->substr(0, 12))); !r)
    spdlog::warn("candidate {}: the incumbent {}'s tuning records were not stored: {}", cand.id, entry->kernel,
                 r.error().what());

  std::map<std::string, std::map<std::string, int64_t>> recorded;  // the configs it is timed with where it timed none
  if (records)
    for (const auto& [name, r] : *records) recorded[name] = r.params;
  v.summary.resources = resources_beside(v, iv.compiler_facts, timed_configs(iv), recorded);

  auto cand_side = candidate->timing_subject("the candidate");
  auto inc_side = incumbent.timing_subject("the incumbent");
  if (!cand_side || !inc_side) return note("not compared with " + entry->kernel + ": a runner could not be kept open");
  const Policy policy = policy_for(m_policy, candidate->device_key());
  const eval::PairedConfig cfg = paired_config(candidate->device_key());
  const eval::PairedRules rules = paired_rules(candidate->device_key());
  eval::MachineWatch watch;
  std::vector<WorkloadComparison> comparisons;
  for (const auto* w : workloads) {
    auto shown = [&](const core::Comparison& c) {
      watch.sample();
      progress(fmt::format("{}: {:.3f}x [{:.3f}, {:.3f}] {} after {} blocks", w->name, c.ratio, c.low, c.high, c.label,
                           c.blocks));
    };
    eval::PairedSeries series(cfg.confidence, rules, cfg.precision_pct, cfg.min_blocks);
    auto c = eval::compare_interleaved(*cand_side, *inc_side, *w, util::secret_seed(), cfg, series, shown);
    if (!c) {
      if (c.error().candidate) {
        v.status = c.error().failure.status;
        v.reason = "during the interleaved comparison with the incumbent on " + w->name + ": " + c.error().failure.reason;
        v.summary.beats_incumbent = false;
        v.summary.decision = core::Decision{false, v.reason, {}, {}, {}};
        return;
      }
      return note("not compared: the incumbent " + entry->kernel + " failed during the interleaved timing on " +
                  w->name + " (" + c.error().failure.reason + ")");
    }
    for (auto& r : v.workloads)
      if (r.kind == "bench" && r.name == w->name) {
        r.vs_incumbent = c->ratio;
        r.comparison = *c;
      }
    comparisons.push_back({w->name, *c});
  }
  conclude(v, comparisons, policy, entry->kernel, watch);
}

void Referee::conclude(core::Verdict& v, const std::vector<WorkloadComparison>& comparisons, const Policy& policy,
                       const std::string& kernel, const eval::MachineWatch& watch) {
  auto machine = watch.state();
  if (v.summary.machine) machine = eval::combined(*v.summary.machine, machine);  // the benchmark stage's and the comparison's
  v.summary.machine = machine;
  auto d = decide(comparisons, policy);
  if (v.summary.resources)  // plain sentences; never a change of promotability
    if (auto lost = resource_loss_note(*v.summary.resources); !lost.empty()) d.reason += "; " + lost;
  double log_sum = 0;
  for (const auto& c : comparisons) log_sum += std::log(c.comparison.ratio);
  v.summary.geomean_vs_incumbent = comparisons.empty() ? 1.0 : std::exp(log_sum / double(comparisons.size()));
  v.summary.beats_incumbent = d.promotable;
  v.summary.decision = d;
  v.reason += std::string("; ") + (d.promotable ? "beats the incumbent " : "does not beat the incumbent ") + kernel + ": " + d.reason +
              (machine.busy ? " (busy machine: " + machine.detail + ")" : "");
}

}  // namespace kwb::library
