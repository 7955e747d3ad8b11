// Issue 15 #12: CPU timings are taken by the trusted side, and a candidate that forges the
// runner's replies or its "done" gets sandbox_violation. Real kwb-runner in the real sandbox, on
// small candidates compiled here.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "eval/runner_client.hpp"
#include "temp_dir.hpp"

namespace kwb::eval {
namespace {

constexpr int64_t k_n = 1 << 16;

// The runner's --fds CMD,REPLY,SHM,GO,DONE as a candidate finds them.
const char* k_find_fds = R"(
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <atomic>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
static bool runner_fds(int fds[5]) {
  char buf[4096] = {};
  int f = open("/proc/self/cmdline", O_RDONLY);
  ssize_t n = f >= 0 ? read(f, buf, sizeof buf - 1) : -1;
  if (f >= 0) close(f);
  for (ssize_t i = 0; i < n; i += ssize_t(std::strlen(buf + i)) + 1)
    if (std::strcmp(buf + i, "--fds") == 0 && i + 6 < n)
      return std::sscanf(buf + i + 6, "%d,%d,%d,%d,%d", &fds[0], &fds[1], &fds[2], &fds[3], &fds[4]) == 5;
  return false;
}
static int fds[5];
static bool found = runner_fds(fds);
)";

struct Session {
  test::TempDir job;
  std::optional<SharedArena> arena;
  std::vector<TensorSlot> slots;
  std::unique_ptr<RunnerSession> runner;
  std::string problem;  // why the session could not start (the test is skipped then)

  // Compiles `body` (the entry kwb_vector_add_f32's statements, after k_find_fds) and starts a
  // runner on it with the arena mapped.
  explicit Session(const std::string& body, int threads = 1) {
    std::filesystem::path runner_bin = std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-runner";
    if (!std::filesystem::exists(runner_bin)) {
      problem = "no kwb-runner at " + runner_bin.string();
      return;
    }
    std::ofstream(job / "candidate.cpp") << k_find_fds
                                          << "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                                             "float* c, int64_t n) {\n"
                                          << body << "\n}\n";
    std::string cc = "g++ -O2 -std=c++17 -shared -fPIC -pthread -o " + (job / "candidate.so").string() + " " +
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
    for (int64_t i = 0; i < k_n; ++i) {
      reinterpret_cast<float*>(arena->data(slots[0]))[i] = float(i);
      reinterpret_cast<float*>(arena->data(slots[1]))[i] = 1.0f;
    }
    RunnerConfig cfg{runner_bin, "/usr/bin/bwrap", job.path(), threads, 5000, 0};
    auto r = RunnerSession::start(cfg, *arena);
    if (!r) {
      problem = r.error().what();
      return;
    }
    runner = std::move(*r);
    auto loaded = runner->load("/job/candidate.so", "kwb_vector_add_f32");
    EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error().reason);
    auto mapped = runner->map(*arena, slots, {k_n});
    EXPECT_TRUE(mapped) << (mapped ? "" : mapped.error().reason);
  }
  bool output_right() {
    const float* c = reinterpret_cast<const float*>(arena->data(slots[2]));
    for (int64_t i = 0; i < k_n; ++i)
      if (c[i] != float(i) + 1.0f) return false;
    return true;
  }
};

#define KWB_SESSION(name, ...)          \
  Session name(__VA_ARGS__);            \
  if (!name.runner) GTEST_SKIP() << name.problem

const char* k_honest = "for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];";

TEST(RunnerTiming, AnHonestKernelIsTimedByTheTrustedSide) {
  KWB_SESSION(s, k_honest);
  ASSERT_TRUE(s.runner->call());
  auto ns = s.runner->time(50, 1 << 20, 5000);
  ASSERT_TRUE(ns) << ns.error().reason;
  ASSERT_EQ(ns->size(), 50u);
  for (int64_t v : *ns) EXPECT_GT(v, 0);
  EXPECT_TRUE(s.output_right()) << "the outputs were poisoned before and written by the last call";
  auto stats = s.runner->command({{"op", "stats"}}, 5000, "stats");
  ASSERT_TRUE(stats);
  EXPECT_TRUE((*stats)["discarded"].is_number_integer());
  std::sort(ns->begin(), ns->end());
  std::printf("[ measured ] 64 Ki-element vector add, trusted-side timing: median %.1f us, min %.1f us\n",
              double((*ns)[25]) / 1e3, double(ns->front()) / 1e3);
  // A second batch after idle time: nothing happened meanwhile.
  EXPECT_TRUE(s.runner->time(5, 1 << 20, 5000));
}

TEST(RunnerTiming, TheHandshakeCostsLittle) {
  KWB_SESSION(s, "(void)a; (void)b; (void)c; (void)n;");
  auto ns = s.runner->time(200, 0, 5000);
  ASSERT_TRUE(ns) << ns.error().reason;
  std::sort(ns->begin(), ns->end());
  std::printf("[ measured ] empty kernel, trusted-side timing: median %.1f us, p10 %.1f us\n",
              double((*ns)[100]) / 1e3, double((*ns)[20]) / 1e3);
  EXPECT_LT((*ns)[100], 2'000'000) << "two pipe wake-ups";
}

TEST(RunnerTiming, AForgedDoneBeforeTheWorkIsAViolation) {
  KWB_SESSION(s, R"(
    static int calls = 0;
    if (found && ++calls > 1) { int64_t one = 1; (void)!write(fds[4], &one, sizeof one); }
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    volatile double x = 0; for (int i = 0; i < 2000000; ++i) x = x + 1;)");
  ASSERT_TRUE(s.runner->call());  // validation: nothing forged yet
  auto ns = s.runner->time(5, 1 << 26, 5000);
  ASSERT_FALSE(ns) << "times: " << (*ns)[0];
  // Caught by the CPU account ("outside its timed call") or, when the real "done" overtakes a
  // release, by the cross-check of the runner's own figure.
  EXPECT_EQ(ns.error().status, core::Status::sandbox_violation) << ns.error().reason;
  std::printf("[ verdict  ] %s\n", ns.error().reason.c_str());
}

// With the workbench's real flush (64 MiB) the hidden work finishes while the trusted side
// flushes, so the next release sees it. (Work deferred into the next timed window instead is
// the residual docs/security.md describes.)
TEST(RunnerTiming, WorkLeftToAThreadIsAViolation) {
  KWB_SESSION(s, R"(
    static int calls = 0;
    if (++calls == 1) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; return; }
    std::thread([=] { volatile double x = 0; for (int i = 0; i < 2000000; ++i) x = x + 1;
                      for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i]; }).detach();)");
  ASSERT_TRUE(s.runner->call());
  auto ns = s.runner->time(5, 1 << 26, 5000);
  ASSERT_FALSE(ns);
  EXPECT_EQ(ns.error().status, core::Status::sandbox_violation) << ns.error().reason;
}

// Work done while the runner waits between commands (a thread left running by the validation
// call, precomputing for the batch to come) is charged to the candidate beyond the 1 ms idle slack.
TEST(RunnerTiming, WorkBetweenCommandsIsAViolation) {
  KWB_SESSION(s, R"(
    static int calls = 0;
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (++calls == 1) std::thread([] { volatile double x = 0; for (int i = 0; i < 20000000; ++i) x = x + 1; }).detach();)");
  ASSERT_TRUE(s.runner->call());
  // The thread spins for tens of milliseconds. Usually it is done before the batch (then the idle
  // account catches it: "worked while the runner waited"); where it is still spinning, the per-call
  // account does ("worked outside its timed call"). Either way the candidate's CPU is seen.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // not a synchronisation: the verdict holds either way
  auto ns = s.runner->time(5, 1 << 20, 5000);
  ASSERT_FALSE(ns);
  EXPECT_EQ(ns.error().status, core::Status::sandbox_violation) << ns.error().reason;
  EXPECT_NE(ns.error().reason.find("the candidate worked"), std::string::npos) << ns.error().reason;
}

// A single call that used a second core (as a virtual machine's stolen time reads: CPU time the
// guest charges to whatever ran) is charged to its sample, not judged: the label needs the excess
// to recur (MoreThreadsThanAllowedIsAViolation below: on every call).
TEST(RunnerTiming, OneCallsExcessIsChargedNotJudged) {
  KWB_SESSION(s, R"(
    static int calls = 0;
    if (++calls == 3) {  // two threads of ~2 ms each, side by side where the machine allows
      auto spin = [] { volatile double x = 0; for (int i = 0; i < 2000000; ++i) x = x + 1; };
      std::thread t(spin);
      spin();
      t.join();
    }
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];)");
  const int64_t cpu_before = s.runner->runner_cpu_time_ns();
  auto ns = s.runner->time(12, 0, 5000);
  ASSERT_TRUE(ns) << ns.error().reason;
  EXPECT_LE(s.runner->excess_strikes(), 1);
  // Charged: the samples together cover the CPU the runner used (the slacks as in
  // MoreThreadsThanAllowedIsAViolation).
  int64_t total = 0;
  for (int64_t v : *ns) total += v + v / 100 + 10'000;
  const int64_t used = s.runner->runner_cpu_time_ns() - cpu_before;
  EXPECT_GE(total + 250'000 + 1'000'000, used) << "the batch passed faster than the CPU it used";
}

TEST(RunnerTiming, MoreThreadsThanAllowedIsAViolation) {
  // Four threads of work in a session that allows one: faster than one thread's real work.
  KWB_SESSION(s, R"(
    std::thread t[4];
    for (auto& th : t) th = std::thread([] { volatile double x = 0; for (int i = 0; i < 2000000; ++i) x = x + 1; });
    for (auto& th : t) th.join();
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];)");
  const int64_t cpu_before = s.runner->runner_cpu_time_ns();
  ASSERT_GE(cpu_before, 0);
  auto ns = s.runner->time(3, 0, 5000);
  if (ns) {
    // Not caught: then the threads did not run side by side (a loaded 2-core machine), and the
    // times must cover the CPU the runner used (one thread allowed; the slacks of
    // runner_client_timing.cpp: 1 % + 10 us per call, 250 us + the acknowledgement per batch).
    int64_t total = 0;
    for (int64_t v : *ns) total += v + v / 100 + 10'000;
    const int64_t used = s.runner->runner_cpu_time_ns() - cpu_before;
    EXPECT_GE(total + 250'000 + 1'000'000, used) << "the batch passed faster than the CPU it used";
    return;
  }
  EXPECT_EQ(ns.error().status, core::Status::sandbox_violation) << ns.error().reason;
}

// This thread (and the runner it starts: affinity is inherited) on one CPU, with a busy thread of
// the test's own on that CPU too: the machine is as busy as it gets for the runner's main thread.
class SharedCpu {
 public:
  SharedCpu() {
    ::sched_getaffinity(0, sizeof m_saved, &m_saved);
    const int cpu = ::sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ::sched_setaffinity(0, sizeof one, &one);
    m_hog = std::thread([this, one] {
      ::sched_setaffinity(0, sizeof one, &one);
      volatile uint64_t x = 0;
      while (!m_stop.load(std::memory_order_relaxed)) x = x + 1;
    });
  }
  ~SharedCpu() {
    m_stop = true;
    m_hog.join();
    ::sched_setaffinity(0, sizeof m_saved, &m_saved);
  }

 private:
  cpu_set_t m_saved{};
  std::atomic<bool> m_stop{false};
  std::thread m_hog;
};

// A call that uses 10 ms of its thread's CPU, however long that takes on the clock.
const char* k_ten_ms_of_cpu = R"(
    timespec t0{}, t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < 10000000LL);
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];)";

// One thread: the time the runner's main thread waited for a CPU is the machine's, not the
// kernel's (docs/security.md). Sharing a CPU with a busy thread doubles the wall time of each call.
TEST(RunnerTiming, APreemptedCallIsNotChargedItsWaitsForACpu) {
  SharedCpu busy;
  KWB_SESSION(s, k_ten_ms_of_cpu);
  ASSERT_TRUE(s.runner->call());
  auto ns = s.runner->time(9, 1 << 20, 10000);
  ASSERT_TRUE(ns) << ns.error().reason;
  std::sort(ns->begin(), ns->end());
  std::printf("[ measured ] 10 ms of CPU beside a busy thread on the same CPU: median sample %.2f ms\n",
              double((*ns)[4]) / 1e6);
  EXPECT_GE((*ns)[0], 9'500'000) << "never below the CPU time the call used";
  EXPECT_LT((*ns)[4], 13'000'000) << "the waits for a CPU were charged to the kernel";
  EXPECT_TRUE(s.output_right());
}

// The correction cannot hide work: a second thread that computes while the main one yields (so
// the main thread's waits would cover the work) is charged the CPU time the runner used.
TEST(RunnerTiming, WorkOfASecondThreadWhileTheFirstYieldsIsCharged) {
  SharedCpu busy;
  KWB_SESSION(s, R"(
    std::atomic<bool> done{false};
    std::thread helper([&] {
      timespec t0{}, t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
      do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < 10000000LL);
      for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
      done = true;
    });
    while (!done) sched_yield();
    helper.join();)");
  ASSERT_TRUE(s.runner->call());
  auto ns = s.runner->time(5, 1 << 20, 10000);
  if (!ns) {  // caught as work outside the timed call: as good
    EXPECT_EQ(ns.error().status, core::Status::sandbox_violation) << ns.error().reason;
    return;
  }
  for (int64_t v : *ns) EXPECT_GE(v, 9'500'000) << "the helper thread's 10 ms of work were hidden";
}

TEST(RunnerTiming, AReplyOfTheWrongTypeIsAViolationNotACrash) {
  KWB_SESSION(s, std::string(k_honest) + R"(
    const char forged[] = "{\"ok\":\"yes\"}\n"; (void)!write(fds[1], forged, sizeof forged - 1);)");
  auto r = s.runner->call();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().status, core::Status::sandbox_violation) << r.error().reason;
}

TEST(RunnerTiming, AnExtraReplyIsAViolation) {
  // load is command 1, map 2, this call 3: the forged answer is well-formed and accepted, and the
  // runner's own answer is then one reply too many.
  KWB_SESSION(s, std::string(k_honest) + R"(
    static bool once = false;
    if (!once) { once = true; const char forged[] = "{\"ok\":true,\"seq\":3,\"ns\":[1]}\n";
                 (void)!write(fds[1], forged, sizeof forged - 1); })");
  auto first = s.runner->call();
  ASSERT_TRUE(first) << first.error().reason;
  auto second = s.runner->call();
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().status, core::Status::sandbox_violation) << second.error().reason;
  // Seen before the next command (the runner's answer already waits) or as the answer to it.
  const std::string& why = second.error().reason;
  EXPECT_TRUE(why.find("nobody asked for") != std::string::npos || why.find("does not answer") != std::string::npos) << why;
}

}  // namespace
}  // namespace kwb::eval
