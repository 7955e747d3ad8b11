#include "library/referee.hpp"

#include <sys/utsname.h>

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "library/snapshot.hpp"
#include "util/hash.hpp"

namespace kwb::library {

namespace {

// Flags a library kernel was promoted with (its metadata's "flags"); none for seeded kernels.
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

struct Side {
  double median_ns, stderr_pct;
  int64_t samples;
};

// Two-sided 99.73% quantiles of Student's t (the "3 sigma" of a normal for few samples): a
// standard error estimated from 3 samples is itself uncertain, so it needs a far wider band.
double t_quantile(int64_t df) {
  static constexpr std::pair<int64_t, double> k_table[] = {
      {1, 235.8}, {2, 19.21}, {3, 9.22}, {4, 6.62}, {5, 5.51},  {6, 4.90},  {7, 4.53},   {8, 4.28},
      {9, 4.09},  {10, 3.96}, {15, 3.59}, {20, 3.42}, {30, 3.27}, {60, 3.13}, {120, 3.06}};
  if (df >= 1000) return 3.0;
  double q = k_table[0].second;
  for (const auto& [at, value] : k_table)
    if (df >= at) q = value;  // the entry at or below df: conservative between entries
  return q;
}

}  // namespace

std::string device_class(const core::Verdict& v) {
  if (v.backend == "cpu") {
    utsname u{};
    uname(&u);
    return std::string("cpu-") + u.machine;
  }
  auto at = v.device.find("(sm_");
  if (at == std::string::npos) return "any";
  auto end = v.device.find_first_of(",)", at);
  return "cuda-" + v.device.substr(at + 1, end - at - 1);
}

std::string base_toolchain(const std::string& toolchain, const std::vector<std::string>& flags) {
  std::string suffix;
  for (const auto& f : flags) suffix += " " + f;
  if (!suffix.empty() && toolchain.ends_with(suffix)) return toolchain.substr(0, toolchain.size() - suffix.size());
  return toolchain;
}

store::TuningIdentity identity_of(const core::Verdict& v) { return {v.device, v.toolchain, KWB_VERSION}; }

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

void Referee::judge(const core::Candidate& cand, core::Verdict& v, const MeasureFn& measure) {
  if (v.status != core::Status::accepted) return;
  store::TuningRepository tuning(m_db);
  const std::string cand_sha = util::sha256_hex(cand.source);
  (void)tuning.put(records_of(v, cand_sha, cand.id));

  auto note = [&](const std::string& text) { v.reason += "; " + text; };
  auto snap = read_head(m_repo);
  if (!snap) return note("not compared with the library: " + snap.error().what());
  const std::string* head = &snap->commit;
  const std::string dc = device_class(v);
  const DispatchEntry* entry = snap->dispatch.incumbent(v.op, v.variant, v.backend, dc);
  if (!entry) {
    v.summary.beats_incumbent = true;
    return note(fmt::format("no incumbent for {}/{}/{} yet: promoting it would make it the first", v.op, v.variant,
                            v.backend));
  }
  auto inc_source = m_repo.read(entry->kernel, *head);
  if (!inc_source) return note("not compared with the library: " + inc_source.error().what());
  core::IncumbentRef ref{entry->kernel, *head, util::sha256_hex(*inc_source), entry->device_class, false};
  v.summary.incumbent = ref;
  if (ref.source_sha256 == cand_sha) {
    v.summary.beats_incumbent = false;
    for (auto& w : v.workloads)
      if (w.kind == "bench" && w.time) w.vs_incumbent = 1.0;
    v.summary.geomean_vs_incumbent = 1.0;
    return note("identical to the incumbent " + entry->kernel);
  }

  // The incumbent's records under the identity it would be measured with here and now.
  auto flags = kernel_flags(m_repo, entry->kernel, *head);
  store::TuningIdentity inc_id{v.device, base_toolchain(v.toolchain, cand.flags), KWB_VERSION};
  for (const auto& f : flags) inc_id.toolchain += " " + f;
  (void)tuning.mark_stale_except(v.op, v.variant, v.backend, ref.source_sha256, inc_id);
  auto records = tuning.current(v.op, v.variant, v.backend, ref.source_sha256, inc_id);
  std::map<std::string, Side> inc;
  if (records)
    for (const auto& [name, r] : *records) inc[name] = {r.median_ns, r.stderr_pct, r.samples};
  bool complete = !m_policy.always_remeasure;
  for (const auto& w : v.workloads)
    if (w.kind == "bench" && w.time && !inc.contains(w.name)) complete = false;
  if (!complete) {
    core::Candidate ic{"library:" + entry->kernel, v.op, v.variant, v.backend, *inc_source, entry->kernel, flags,
                       "incumbent re-measured"};
    core::Verdict iv = measure(ic);
    v.summary.incumbent->remeasured = true;
    if (iv.status != core::Status::accepted) {
      // Only a verdict about the incumbent's code dethrones it; a machine that could not run it
      // (no device, an error, a limit hit under load) leaves the comparison undecided.
      using S = core::Status;
      bool about_the_code = iv.status == S::incorrect || iv.status == S::compile_error ||
                            iv.status == S::rejected || iv.status == S::crashed || iv.status == S::sandbox_violation;
      std::string what = std::string(core::status_name(iv.status)) + ": " + iv.reason;
      if (!about_the_code) return note("not compared: the incumbent " + entry->kernel + " could not be re-timed (" + what + ")");
      v.summary.beats_incumbent = true;
      return note("the incumbent " + entry->kernel + " is no longer accepted (" + what + ")");
    }
    auto fresh = records_of(iv, ref.source_sha256, "library:" + entry->kernel + "@" + head->substr(0, 12));
    (void)tuning.put(fresh);
    inc.clear();
    for (const auto& r : fresh) inc[r.workload] = {r.median_ns, r.stderr_pct, r.samples};
    v.summary.incumbent->remeasured = true;
  }

  int wins = 0, regressions = 0, compared = 0;
  double log_sum = 0;
  std::string best, worst;
  double best_s = 0, worst_s = 1e300;
  for (auto& w : v.workloads) {
    if (w.kind != "bench" || !w.time) continue;
    auto it = inc.find(w.name);
    if (it == inc.end() || w.time->median_ns <= 0) continue;
    double speedup = it->second.median_ns / w.time->median_ns;
    w.vs_incumbent = speedup;
    ++compared;
    log_sum += std::log(speedup);
    // A win must clear noise_sigmas standard errors, widened by Student's t for few samples (df
    // of the smaller side); one sample has no error estimate and never wins. A regression is
    // judged without the widening: few samples must not hide one.
    int64_t df = std::min<int64_t>(w.time->samples, it->second.samples) - 1;
    double se = std::hypot(w.time->mean_stderr_pct, it->second.stderr_pct);
    double win_noise = m_policy.noise_sigmas / 3.0 * t_quantile(df) * se;
    if (df >= 1 && (speedup - 1) * 100 > std::max(m_policy.min_gain_pct, win_noise)) ++wins;
    if ((1 - speedup) * 100 > std::max(m_policy.max_regression_pct, m_policy.noise_sigmas * se)) ++regressions;
    if (speedup > best_s) best_s = speedup, best = w.name;
    if (speedup < worst_s) worst_s = speedup, worst = w.name;
  }
  if (compared == 0) return note("no bench workload was timed: not compared with " + entry->kernel);
  double geomean = std::exp(log_sum / compared);
  v.summary.geomean_vs_incumbent = geomean;
  v.summary.beats_incumbent = wins > 0 && regressions == 0;
  if (*v.summary.beats_incumbent)
    note(fmt::format("beats the incumbent {}: {:.3f}x geomean, faster beyond noise on {} of {} bench workloads "
                     "(best {} {:.3f}x)", entry->kernel, geomean, wins, compared, best, best_s));
  else if (regressions > 0)
    note(fmt::format("does not beat the incumbent {}: {:.3f}x geomean, {} slower by {:.1f}% (more than the {:.0f}% "
                     "allowed)", entry->kernel, geomean, worst, (1 - worst_s) * 100, m_policy.max_regression_pct));
  else
    note(fmt::format("does not beat the incumbent {}: {:.3f}x geomean, no bench workload faster by more than {:.0f}% "
                     "and the noise", entry->kernel, geomean, m_policy.min_gain_pct));
}

}  // namespace kwb::library
