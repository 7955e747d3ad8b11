#include "eval/cpu_evaluator.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "build/cpu_toolchain.hpp"
#include "eval/benchmark.hpp"
#include "eval/harness.hpp"
#include "eval/runner_client.hpp"
#include "spec/expr.hpp"
#include "util/fs.hpp"
#include "util/random.hpp"

namespace kwb::eval {

namespace {

using clock = std::chrono::steady_clock;

double ms_since(clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); }

bool runs_on(const core::Workload& w, const std::string& backend) {
  if (w.backends.empty()) return true;
  for (const auto& b : w.backends)
    if (b == backend) return true;
  return false;
}

// Secret seeds by default; a fixed --seed gives a reproducible sequence for debugging.
class SeedSource {
 public:
  explicit SeedSource(uint64_t fixed) : m_fixed(fixed != 0), m_rng(fixed) {}
  uint64_t next() { return m_fixed ? m_rng.next() : util::secret_seed(); }

 private:
  bool m_fixed;
  util::Rng m_rng;
};

// Physics floor: no kernel moves its compulsory bytes faster than this multiple of the
// calibrated one-thread copy bandwidth (caches are flushed before every sample).
constexpr double k_floor_bandwidth_factor = 4.0;

struct Run {
  const core::Spec& spec;
  const core::Variant& variant;
  core::ReferenceFn reference;
  const EvalOptions& opt;
  const CpuDevice& device;
  core::Verdict& verdict;
  SeedSource seeds;
};

void fail(core::Verdict& v, core::Status s, std::string reason) {
  v.status = s;
  v.reason = std::move(reason);
}

core::RooflineResult roofline(const Run& run, const core::Workload& w, double median_ns) {
  core::RooflineResult r;
  spec::Env env(w.params.begin(), w.params.end());
  if (auto b = spec::evaluate(run.variant.roofline.bytes, env)) r.bytes = double(*b);
  if (auto f = spec::evaluate(run.variant.roofline.flops, env)) r.flops = double(*f);
  if (median_ns > 0 && run.device.copy_bytes_per_s > 0)
    r.pct_bw = r.bytes / (median_ns * 1e-9) / run.device.copy_bytes_per_s * 100.0;
  return r;
}

size_t output_elements(const WorkloadHarness& h) {
  size_t n = 0;
  for (const auto& s : h.slots())
    if (s.role != core::Role::in) n += s.count;
  return n;
}

// Validates (and for bench workloads times) every workload; false when the verdict is decided.
// A wrong result on a test workload does not stop the others (their table helps the author);
// the reason quotes the largest failing workload, where the pattern of a bug is clearest.
// Crashes, hangs and sandbox failures stop at once.
bool evaluate_workloads(Run& run, SharedArena& arena, RunnerSession& runner, bool bench) {
  const auto& list = bench ? run.spec.bench_workloads : run.spec.test_workloads;
  struct Wrong {
    size_t elements;
    std::string reason;
  };
  std::vector<Wrong> wrong;
  size_t considered = 0;
  for (const auto& w : list) {
    if (!runs_on(w, "cpu")) continue;
    ++considered;
    core::WorkloadResult& res = run.verdict.workloads.emplace_back();
    res.name = w.name;
    res.kind = bench ? "bench" : "test";
    res.params = w.params;
    WorkloadHarness h(run.spec, run.variant, run.reference, arena, runner, w, res);
    // Returns true when evaluation may go on with the next workload.
    auto record = [&](const CheckFailure& f) {
      res.correct = false;
      if (f.status == core::Status::incorrect && !bench) {
        wrong.push_back({output_elements(h), f.reason});
        return true;
      }
      fail(run.verdict, f.status, f.reason);
      return false;
    };
    if (auto f = h.prepare()) {
      fail(run.verdict, f->status, f->reason);
      return false;
    }
    // Test workloads: every distribution; bench workloads: the first (realistic) one.
    size_t ndist = bench ? 1 : run.spec.distributions.size();
    bool failed = false;
    for (size_t d = 0; d < ndist && !failed; ++d) {
      h.load_inputs(run.spec.distributions[d], run.seeds.next());
      std::optional<CheckFailure> f = h.run_and_verify(run.seeds.next());
      if (!f) f = h.check_determinism(run.seeds.next());
      if (f) {
        if (!record(*f)) return false;
        failed = true;
      }
    }
    if (failed || !bench || !run.opt.benchmark) continue;
    BenchmarkConfig cfg;
    cfg.budget_ms = run.opt.time_budget_ms;
    cfg.flush_bytes = run.device.llc_bytes * 2;
    cfg.command_timeout_ms = run.opt.run_timeout_ms;
    RelativeStderrCriterion criterion;
    core::TimeStats stats;
    auto fresh = [&] {
      h.load_inputs(run.spec.distributions[0], run.seeds.next());
      arena.arm_guards(run.seeds.next());
    };
    arena.arm_guards(run.seeds.next());
    if (auto f = run_benchmark(h, runner, cfg, criterion, fresh, stats)) return record(*f);
    res.time = stats;
    res.roofline = roofline(run, w, stats.median_ns);
    double floor_ns = res.roofline->bytes / (run.device.copy_bytes_per_s * k_floor_bandwidth_factor) * 1e9;
    if (run.device.copy_bytes_per_s > 0 && stats.median_ns < floor_ns) {
      res.correct = false;
      fail(run.verdict, core::Status::rejected,
           fmt::format("workload {}: median {:.0f} ns is physically impossible: moving {:.0f} bytes needs at least "
                       "{:.0f} ns at {:.1f}x the calibrated bandwidth of {:.2f} GB/s (is work skipped or done "
                       "outside the timed call?)",
                       w.name, stats.median_ns, res.roofline->bytes, floor_ns, k_floor_bandwidth_factor,
                       run.device.copy_bytes_per_s / 1e9));
      return false;
    }
  }
  if (wrong.empty()) return true;
  auto worst = std::max_element(wrong.begin(), wrong.end(),
                                [](const Wrong& a, const Wrong& b) { return a.elements < b.elements; });
  fail(run.verdict, core::Status::incorrect,
       fmt::format("wrong on {} of {} test workloads; {}", wrong.size(), considered, worst->reason));
  return false;
}

std::string accepted_reason(const core::Verdict& v) {
  int tests = 0, checks = 0;
  const core::WorkloadResult* slowest = nullptr;
  for (const auto& w : v.workloads) {
    checks += w.checks;
    if (w.kind == "test") ++tests;
    if (w.time && (!slowest || w.time->median_ns > slowest->time->median_ns)) slowest = &w;
  }
  std::string s = fmt::format("correct on {} test and {} bench workloads ({} checks on fresh inputs)", tests,
                              v.workloads.size() - size_t(tests), checks);
  if (slowest && slowest->roofline && slowest->roofline->pct_bw)
    s += fmt::format("; {}: median {:.3f} ms, {:.0f}% of calibrated bandwidth", slowest->name,
                     slowest->time->median_ns / 1e6, *slowest->roofline->pct_bw);
  return s;
}

}  // namespace

util::Result<const core::Variant*> choose_variant(const core::Spec& spec, const core::Candidate& cand) {
  std::string names;
  for (const auto& v : spec.variants) names += (names.empty() ? "" : ", ") + v.name;
  if (!cand.variant.empty()) {
    if (auto* v = spec.find_variant(cand.variant)) return v;
    return util::fail("variant", "op " + spec.op + " has no variant '" + cand.variant + "' (variants: " + names + ")");
  }
  if (spec.variants.size() == 1) return &spec.variants[0];
  const core::Variant* found = nullptr;
  for (const auto& v : spec.variants)
    if (cand.source.find(v.entry) != std::string::npos) {
      if (found) return util::fail("variant", "the source mentions several entry points; pass --variant (" + names + ")");
      found = &v;
    }
  if (!found) return util::fail("variant", "cannot tell which variant the source implements; pass --variant (" + names + ")");
  return found;
}

core::Verdict evaluate_cpu(const core::Spec& spec, core::ReferenceFn reference, const core::Candidate& cand,
                           const EvalOptions& opt, const CpuDevice& device) {
  const auto t0 = clock::now();
  core::Verdict v;
  v.candidate = cand.id;
  v.op = spec.op;
  v.backend = "cpu";
  v.device = device.name + ", " + std::to_string(opt.threads) + " thread" + (opt.threads == 1 ? "" : "s");
  auto finish = [&]() -> core::Verdict {
    v.summary.wall_ms = ms_since(t0);
    return v;
  };
  auto variant = choose_variant(spec, cand);
  if (!variant) {
    fail(v, core::Status::rejected, variant.error().what());
    return finish();
  }
  v.variant = (*variant)->name;
  if (!reference) {
    fail(v, core::Status::error, "no trusted reference is compiled in for op " + spec.op);
    return finish();
  }
  auto toolchain = build::CpuToolchain::detect(opt.cxx);
  if (!toolchain) {
    fail(v, core::Status::error, toolchain.error().what());
    return finish();
  }
  auto flags = toolchain->base_flags();
  flags.insert(flags.end(), cand.flags.begin(), cand.flags.end());
  v.toolchain = toolchain->identity();
  for (const auto& f : flags) v.toolchain += " " + f;

  auto job = util::make_unique_dir(opt.workspace / "jobs", "job-");
  if (!job) {
    fail(v, core::Status::error, job.error().what());
    return finish();
  }
  struct JobCleanup {
    std::filesystem::path dir;
    bool keep;
    ~JobCleanup() {
      std::error_code ec;
      if (!keep) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{*job, opt.keep_job};

  // Compile.
  auto tc = clock::now();
  build::CompileRequest creq{cand.source, cand.source_name, *job, cand.flags, opt.bwrap, opt.compile_timeout_ms};
  auto compiled = toolchain->compile(creq);
  v.summary.stage_ms["compile"] = ms_since(tc);
  if (!compiled) {
    fail(v, core::Status::error, compiled.error().what());
    return finish();
  }
  v.diagnostics = compiled->diagnostics;
  if (!compiled->ok) {
    fail(v, compiled->timed_out ? core::Status::time_limit : core::Status::compile_error, compiled->reason);
    return finish();
  }

  // Validate and benchmark in one runner session.
  auto arena = SharedArena::create();
  if (!arena) {
    fail(v, core::Status::error, arena.error().what());
    return finish();
  }
  RunnerConfig rcfg{opt.runner, opt.bwrap, *job, opt.threads, opt.run_timeout_ms, 4ll << 30};
  auto runner = RunnerSession::start(rcfg, *arena);
  if (!runner) {
    fail(v, core::Status::error, runner.error().what());
    return finish();
  }
  if (auto r = (*runner)->load(compiled->object_inside, (*variant)->entry); !r) {
    fail(v, r.error().status, r.error().reason);
    return finish();
  }
  Run run{spec, **variant, reference, opt, device, v, SeedSource(opt.seed)};
  auto tv = clock::now();
  bool ok = evaluate_workloads(run, *arena, **runner, false);
  v.summary.stage_ms["validate"] = ms_since(tv);
  auto tb = clock::now();
  if (ok) ok = evaluate_workloads(run, *arena, **runner, true);
  v.summary.stage_ms["benchmark"] = ms_since(tb);
  (*runner)->finish();
  if (ok) {
    v.status = core::Status::accepted;
    v.reason = accepted_reason(v);
  }
  return finish();
}

}  // namespace kwb::eval
