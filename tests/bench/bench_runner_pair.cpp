// One CPU kernel timed in two kwb-runner processes, block pair by block pair as the decide stage
// does (docs/library.md "Decide"), with fresh processes per trial: how far apart two processes
// that run the same code read, and what that depends on (issue #32; docs/benchmarks/decide.md
// "Two processes, one kernel"). A benchmark that reports figures, not a test:
//   build/bin/bench_runner_pair KERNEL.cpp [--n N] [--trials T] [--blocks B] [--spinner]
//       [--arena fixed|anywhere] [--placement pairs|free|split] [--shared-arena] [--no-aslr] [--self]
// KERNEL.cpp defines kwb_vector_add_f32 (c = a + b over n floats); it is compiled here with the
// workbench's CPU flags. Each trial starts runners A and B on it, each with its own arena, times
// B block pairs of one cold call per side (flushed as in the benchmark stage) in a random order,
// and prints the median of the per-pair ratios (B's time / A's: > 1, A faster) with its 99 %
// order-statistic interval, and the CPUs each side's calls ran on.
//   --arena fixed: both map their arena at k_timed_arena_address (what timed runners do, default);
//           anywhere: where each process's kernel puts it (before issue #32).
//   --placement pairs: both sides of a block pair, and this thread while it times them, pinned to
//           the CPU this thread is on when the pair starts (default, what the decide stage does);
//           free: where the scheduler puts them (before); split: A on the first allowed CPU, B on
//           the second.
//   --shared-arena: A and B map one arena (the same physical pages); --no-aslr: the runners start
//   without address randomisation; --self: B is A's process (a control); --spinner: a child
//   process spins throughout (issue #32's condition: one of two cores kept busy).
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "eval/arena.hpp"
#include "eval/cpu_device.hpp"
#include "eval/cpu_placement.hpp"
#include "eval/paired_timing.hpp"
#include "eval/runner_client.hpp"

namespace {

namespace fs = std::filesystem;
using kwb::eval::RunnerSession;
using kwb::eval::SharedArena;
using kwb::eval::TensorSlot;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_runner_pair: %s\n", what.c_str());
  std::exit(1);
}

struct Options {
  fs::path kernel;
  int64_t n = 16 << 20;
  int trials = 10, blocks = 20;
  std::string arena = "fixed", placement = "pairs";
  bool spinner = false, shared_arena = false, no_aslr = false, self = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") o.n = std::atoll(value().c_str());
    else if (a == "--trials") o.trials = std::atoi(value().c_str());
    else if (a == "--blocks") o.blocks = std::atoi(value().c_str());
    else if (a == "--arena") o.arena = value();
    else if (a == "--placement") o.placement = value();
    else if (a == "--spinner") o.spinner = true;
    else if (a == "--shared-arena") o.shared_arena = true;
    else if (a == "--no-aslr") o.no_aslr = true;
    else if (a == "--self") o.self = true;
    else if (a.rfind("--", 0) == 0) die("unknown option " + a);
    else o.kernel = a;
  }
  const bool ok = !o.kernel.empty() && o.n > 0 && o.trials > 0 && o.blocks >= 8 &&
                  (o.arena == "fixed" || o.arena == "anywhere") &&
                  (o.placement == "pairs" || o.placement == "free" || o.placement == "split");
  if (!ok)
    die("usage: bench_runner_pair KERNEL.cpp [--n N] [--trials T] [--blocks B>=8] [--spinner] [--arena fixed|anywhere] "
        "[--placement pairs|free|split] [--shared-arena] [--no-aslr] [--self]");
  return o;
}

std::vector<TensorSlot> vector_add_slots(int64_t n) {
  std::vector<TensorSlot> slots;
  for (const char* name : {"a", "b", "c"}) {
    TensorSlot s;
    s.name = name;
    s.role = name[0] == 'c' ? kwb::core::Role::out : kwb::core::Role::in;
    s.count = size_t(n);
    s.bytes = size_t(n) * sizeof(float);
    s.shape = {n};
    slots.push_back(s);
  }
  return slots;
}

// A fresh arena with the inputs of vector_add over n floats; `slots` gets the layout's offsets.
SharedArena make_arena(int64_t n, std::vector<TensorSlot>& slots) {
  auto a = SharedArena::create();
  if (!a) die(a.error().what());
  slots = vector_add_slots(n);
  if (auto r = a->layout(slots); !r) die(r.error().what());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int t = 0; t < 2; ++t) {
    float* p = reinterpret_cast<float*>(a->data(slots[size_t(t)]));
    for (int64_t i = 0; i < n; ++i) p[i] = u(rng);
  }
  return std::move(*a);
}

struct Side {
  std::optional<SharedArena> own_arena;
  std::unique_ptr<RunnerSession> runner;
  std::map<int, int> cpus;  // calls per CPU the runner was last seen on
};

void start_side(Side& s, const Options& o, const fs::path& job, SharedArena* shared) {
  std::vector<TensorSlot> slots;
  if (!shared) s.own_arena.emplace(make_arena(o.n, slots));
  else slots = vector_add_slots(o.n), (void)shared->layout(slots);  // the same layout: the mapping is kept
  SharedArena& arena = shared ? *shared : *s.own_arena;
  kwb::eval::RunnerConfig cfg{fs::path(KWB_BENCH_BIN_DIR) / "kwb-runner", "/usr/bin/bwrap", job, 1, 20000, 0};
  cfg.cpu_seconds = 600;
  cfg.arena_address = o.arena == "fixed" ? kwb::eval::k_timed_arena_address : 0;
  cfg.pin_while_timed = o.placement == "pairs";
  auto r = RunnerSession::start(cfg, arena);
  if (!r) die(r.error().what());
  s.runner = std::move(*r);
  if (auto l = s.runner->load("/job/candidate.so", "kwb_vector_add_f32"); !l) die(l.error().reason);
  if (auto m = s.runner->map(arena, slots, {o.n}); !m) die(m.error().reason);
  if (auto c = s.runner->call(); !c) die(c.error().reason);
}

pid_t start_spinner() {
  pid_t pid = ::fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    volatile uint64_t x = 0;
    for (;;) x = x + 1;
  }
  return pid;
}

std::string cpus_text(const std::map<int, int>& m) {
  std::string s;
  for (auto [cpu, calls] : m) {
    if (!s.empty()) s.push_back(' ');
    s.append(std::to_string(calls)).append("@cpu").append(std::to_string(cpu));
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  char tmpl[] = "/tmp/kwb-bench-pair-XXXXXX";
  if (!::mkdtemp(tmpl)) die("mkdtemp failed");
  ::chmod(tmpl, 0755);
  const fs::path job = tmpl;
  const std::string cc = "g++ -std=c++20 -O3 -march=native -fPIC -shared -o " + (job / "candidate.so").string() + " " +
                         o.kernel.string();
  if (std::system(cc.c_str()) != 0) die("cannot compile " + o.kernel.string());
  const auto cpus = kwb::eval::allowed_cpus();
  if (o.placement == "split" && cpus.size() < 2) die("--placement split needs two CPUs");
  const pid_t spinner = o.spinner ? start_spinner() : -1;
  if (o.no_aslr) ::personality(ADDR_NO_RANDOMIZE);  // inherited by bwrap and the runners
  const size_t flush = kwb::eval::detect_cpu().llc_bytes * 2;
  std::printf("%s, n %lld, %d trials x %d block pairs; arena %s, placement %s%s%s%s%s; flush %zu MiB\n",
              o.kernel.filename().c_str(), (long long)o.n, o.trials, o.blocks, o.arena.c_str(), o.placement.c_str(),
              o.shared_arena ? ", one shared arena" : "", o.no_aslr ? ", no ASLR" : "", o.self ? ", B = A" : "",
              o.spinner ? ", a spinner" : "", flush >> 20);
  std::printf("| trial | ratio | 99%% interval | A ms | B ms | A's CPUs | B's CPUs |\n|---:|---:|---|---:|---:|---|---|\n");
  std::mt19937_64 order(std::random_device{}());
  std::vector<double> trial_ratios;
  int excluding_one = 0;
  for (int t = 0; t < o.trials; ++t) {
    std::optional<SharedArena> shared;
    std::vector<TensorSlot> shared_slots;
    if (o.shared_arena) shared.emplace(make_arena(o.n, shared_slots));
    Side sides[2];
    start_side(sides[0], o, job, shared ? &*shared : nullptr);
    if (!o.self) start_side(sides[1], o, job, shared ? &*shared : nullptr);
    RunnerSession* runner[2] = {sides[0].runner.get(), o.self ? sides[0].runner.get() : sides[1].runner.get()};
    if (o.placement == "split")
      for (int s = 0; s < 2; ++s)
        if (auto r = kwb::eval::pin_process(runner[s]->runner_pid(), cpus[size_t(s)]); !r) die(r.error().what());
    std::vector<double> ratios, ns_of[2];
    for (int b = 0; b < o.blocks; ++b) {
      const bool a_first = order() & 1;
      double ns[2] = {0, 0};
      for (int turn = 0; turn < 2; ++turn) {
        const int who = (turn == 0) == a_first ? 0 : 1;
        runner[who]->set_placement_key(uint64_t(t) << 32 | uint64_t(b + 1));  // as TimingSubject::block does
        auto v = runner[who]->time(1, flush, 20000);
        if (!v) die(v.error().reason);
        ns[who] = double(v->front());
        ns_of[who].push_back(ns[who]);
        ++sides[who].cpus[kwb::eval::last_cpu_of(runner[who]->runner_pid())];
      }
      ratios.push_back(ns[1] / ns[0]);
    }
    auto mi = kwb::eval::median_interval(ratios, 0.99);
    for (auto& v : ns_of) std::sort(v.begin(), v.end());
    std::printf("| %d | %.3f | [%.3f, %.3f] | %.2f | %.2f | %s | %s |\n", t + 1, mi.median, mi.low, mi.high,
                ns_of[0][ns_of[0].size() / 2] / 1e6, ns_of[1][ns_of[1].size() / 2] / 1e6, cpus_text(sides[0].cpus).c_str(),
                cpus_text(sides[1].cpus).c_str());
    std::fflush(stdout);
    trial_ratios.push_back(mi.median);
    if (mi.low > 1 || mi.high < 1) ++excluding_one;
  }
  std::sort(trial_ratios.begin(), trial_ratios.end());
  double worst = 0;
  for (double r : trial_ratios) worst = std::max(worst, std::abs(std::log(r)));
  std::printf("ratios of %d trials: min %.3f, median %.3f, max %.3f (largest %.1f %% from 1); %d intervals exclude 1\n",
              o.trials, trial_ratios.front(), trial_ratios[trial_ratios.size() / 2], trial_ratios.back(),
              (std::exp(worst) - 1) * 100, excluding_one);
  if (spinner > 0) {
    ::kill(spinner, SIGKILL);
    ::waitpid(spinner, nullptr, 0);
  }
  std::error_code ec;
  fs::remove_all(job, ec);
  return 0;
}
