// Where a timed CPU runner sits (issue #32): the arena at one linear address in every timed
// runner, and one CPU per timing batch, the CPUs in turn (eval/cpu_placement.hpp). Real kwb-runner
// in the real sandbox for the runner cases, on small candidates compiled here.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "eval/cpu_placement.hpp"
#include "eval/runner_client.hpp"
#include "temp_dir.hpp"

namespace kwb::eval {
namespace {

constexpr int64_t k_n = 1 << 12;

// The CPUs thread `tid` may run on.
std::vector<int> affinity_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(tid, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Where process `pid` maps its arena (the memfd the trusted side named kwb-arena): the start
// address of that mapping, 0 when there is none.
uintptr_t arena_mapping_of(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("kwb-arena") != std::string::npos) return uintptr_t(std::stoull(line.substr(0, line.find('-')), nullptr, 16));
  return 0;
}

struct TimedRunner {
  test::TempDir job;
  std::optional<SharedArena> arena;
  std::vector<TensorSlot> slots;
  std::unique_ptr<RunnerSession> runner;
  std::string problem;  // why the session could not start (the test is skipped then)
  RunnerResult<void> mapped;

  // `prelude`: source placed before the entry (static initialisers run when the runner loads it).
  explicit TimedRunner(const std::string& prelude = "") : mapped(std::unexpected(RunnerFailure{})) {
    std::filesystem::path runner_bin = std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-runner";
    if (!std::filesystem::exists(runner_bin)) {
      problem = "no kwb-runner at " + runner_bin.string();
      return;
    }
    std::ofstream(job / "candidate.cpp") << "#include <cstdint>\n#include <sys/mman.h>\n" << prelude
                                          << "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                                             "float* c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n";
    std::string cc = "g++ -O2 -std=c++17 -shared -fPIC -o " + (job / "candidate.so").string() + " " +
                     (job / "candidate.cpp").string() + " 2>&1";
    if (std::system(cc.c_str()) != 0) {
      ADD_FAILURE() << "cannot compile the candidate: " << cc;
      problem = "compile";
      return;
    }
    auto a = SharedArena::create();
    EXPECT_TRUE(a);
    arena.emplace(std::move(*a));
    for (const char* name : {"a", "b", "c"}) {
      TensorSlot s;
      s.name = name;
      s.role = name[0] == 'c' ? core::Role::out : core::Role::in;
      s.count = k_n;
      s.bytes = k_n * sizeof(float);
      s.shape = {k_n};
      slots.push_back(s);
    }
    EXPECT_TRUE(arena->layout(slots));
    RunnerConfig cfg{runner_bin, "/usr/bin/bwrap", job.path(), 1, 5000, 0};
    cfg.arena_address = k_timed_arena_address;  // as CpuEvaluation starts its runner
    cfg.pin_while_timed = true;
    auto r = RunnerSession::start(cfg, *arena);
    if (!r) {
      problem = r.error().what();
      return;
    }
    runner = std::move(*r);
    auto loaded = runner->load("/job/candidate.so", "kwb_vector_add_f32");
    EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error().reason);
    mapped = runner->map(*arena, slots, {k_n});
  }
};

#define KWB_TIMED_RUNNER(name, ...)     \
  TimedRunner name{__VA_ARGS__};        \
  if (!name.runner) GTEST_SKIP() << name.problem

TEST(CpuPlacement, ABatchTakesThisThreadsCpuAndItsPairTheSame) {
  const int here = ::sched_getcpu();
  EXPECT_EQ(cpu_for_batch(0), here);
  EXPECT_EQ(cpu_for_batch(41), here) << "a new key: where this thread is";
  // Elsewhere now: the same key keeps its CPU (the pair's second block), a new key moves along.
  const auto cpus = allowed_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU only";
  const int other = cpus[0] == here ? cpus[1] : cpus[0];
  {
    CallingThreadPin moved(other);
    ASSERT_TRUE(moved.pinned());
    EXPECT_EQ(::sched_getcpu(), other);
    EXPECT_EQ(cpu_for_batch(41), here);
    EXPECT_EQ(cpu_for_batch(42), other);
    EXPECT_EQ(cpu_for_batch(0), other);
  }
  EXPECT_EQ(affinity_of(0), cpus) << "the pin is undone";
}

TEST(CpuPlacement, AllowedCpusAreThisProcesssAffinity) {
  auto cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(cpus, affinity_of(0));
}

TEST(CpuPlacement, PinningMovesEveryThreadAndLastCpuSeesIt) {
  // This process pinned to its last allowed CPU: every thread's affinity is that CPU, and the
  // main thread, running, reads it as its last CPU.
  if (::gettid() != ::getpid()) GTEST_SKIP() << "not on the main thread";
  const auto before = allowed_cpus();
  ASSERT_TRUE(pin_process(::getpid(), before.back()));
  const int seen = last_cpu_of(::getpid());
  std::vector<std::vector<int>> threads;
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c : before) CPU_SET(c, &all);
  for (const auto& t : std::filesystem::directory_iterator("/proc/self/task")) {  // and back on every CPU
    const pid_t tid = pid_t(std::stoi(t.path().filename().string()));
    threads.push_back(affinity_of(tid));
    ::sched_setaffinity(tid, sizeof all, &all);
  }
  EXPECT_EQ(seen, before.back());
  for (const auto& cpus : threads) EXPECT_EQ(cpus, std::vector<int>{before.back()});
  EXPECT_EQ(allowed_cpus(), before);
  EXPECT_EQ(last_cpu_of(-5), -1) << "no such process";
}

TEST(CpuPlacement, PinningAMissingProcessFailsWithItsName) {
  auto r = pin_process(0, 0);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("pid 0"), std::string::npos) << r.error().what();
}

TEST(CpuPlacement, TimedRunnersMapTheArenaAtTheSameAddress) {
  KWB_TIMED_RUNNER(a);
  KWB_TIMED_RUNNER(b);
  ASSERT_TRUE(a.mapped) << a.mapped.error().reason;
  ASSERT_TRUE(b.mapped) << b.mapped.error().reason;
  EXPECT_EQ(arena_mapping_of(a.runner->runner_pid()), k_timed_arena_address);
  EXPECT_EQ(arena_mapping_of(b.runner->runner_pid()), k_timed_arena_address);
  // A larger layout maps anew, at the same address.
  for (auto& s : a.slots) s.count *= 4, s.bytes *= 4, s.shape = {k_n * 4};
  ASSERT_TRUE(a.arena->layout(a.slots));
  ASSERT_TRUE(a.runner->map(*a.arena, a.slots, {k_n * 4}));
  EXPECT_EQ(arena_mapping_of(a.runner->runner_pid()), k_timed_arena_address);
  EXPECT_TRUE(a.runner->call());
}

TEST(CpuPlacement, AnAddressRangeTakenByTheCandidateIsAnError) {
  // The candidate's static initialiser maps memory where the workbench puts the arena.
  char prelude[256];
  std::snprintf(prelude, sizeof prelude,
                "static void* taken = mmap((void*)%#llxull, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | "
                "MAP_FIXED_NOREPLACE, -1, 0);\n",
                static_cast<unsigned long long>(k_timed_arena_address));
  KWB_TIMED_RUNNER(s, prelude);
  ASSERT_FALSE(s.mapped);
  EXPECT_NE(s.mapped.error().reason.find("taken"), std::string::npos) << s.mapped.error().reason;
}

TEST(CpuPlacement, BothSidesOfABlockPairRunOnOneCpuWithTheTimingThread) {
  KWB_TIMED_RUNNER(a);
  KWB_TIMED_RUNNER(b);
  ASSERT_TRUE(a.mapped && b.mapped);
  const auto cpus = allowed_cpus();
  for (uint64_t pair = 1; pair <= 4; ++pair) {
    // The timing thread elsewhere for the pair's second block: it goes with the first's CPU.
    const int first = ::sched_getcpu();
    for (auto* side : {&a, &b}) {
      side->runner->set_placement_key(pair);  // what TimingSubject::block does per block
      auto ns = side->runner->time(2, 1 << 16, 5000);
      ASSERT_TRUE(ns) << ns.error().reason;
      EXPECT_EQ(affinity_of(side->runner->runner_pid()), std::vector<int>{first}) << "pair " << pair;
      EXPECT_EQ(last_cpu_of(side->runner->runner_pid()), first) << "pair " << pair;
      if (side == &a && cpus.size() > 1) {
        CallingThreadPin away(cpus[0] == first ? cpus[1] : cpus[0]);
      }
    }
    EXPECT_EQ(affinity_of(0), cpus) << "the timing thread is given back its CPUs after each batch";
  }
  EXPECT_TRUE(a.runner->placement_problem().empty()) << a.runner->placement_problem();
}

}  // namespace
}  // namespace kwb::eval
