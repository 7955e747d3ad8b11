// The busy-machine warning counts other processes' runnable threads, seen again and again, never
// the workbench's own (issue #32 point 6; docs/evaluation.md "Machine state").
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "eval/machine_state.hpp"

namespace kwb::eval {
namespace {

bool holds(const std::vector<pid_t>& v, pid_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Spins for at most `seconds` (a safety net should the test die before it kills the process).
[[noreturn]] void spin_for(int seconds) {
  const time_t until = ::time(nullptr) + seconds;
  volatile unsigned long x = 0;
  while (::time(nullptr) < until)
    for (int i = 0; i < 1000000; ++i) x = x + 1;
  ::_exit(0);
}

// A spinning process outside this process's tree: started by a child that exits at once, so it is
// nobody's here (its parent becomes init).
pid_t spinner_outside_the_tree() {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  pid_t child = ::fork();
  if (child == 0) {
    pid_t grandchild = ::fork();
    if (grandchild == 0) spin_for(60);
    (void)!::write(fds[1], &grandchild, sizeof grandchild);
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t grandchild = -1;
  (void)!::read(fds[0], &grandchild, sizeof grandchild);
  ::close(fds[0]);
  ::waitpid(child, nullptr, 0);
  return grandchild;
}

TEST(MachineWatch, TheWorkbenchsTreeAndKernelThreadsAreNotCounted) {
  const std::vector<ThreadState> threads = {
      {100, 100, 1, 'R', false},  // the workbench (root) and a second thread of it
      {101, 100, 1, 'R', false},
      {200, 200, 100, 'R', false},  // its runner's sandbox ...
      {300, 300, 200, 'R', false},  // ... and the runner in it
      {400, 400, 1, 'R', false},    // another process, runnable
      {401, 400, 1, 'R', false},    // and its second thread
      {500, 500, 1, 'S', false},    // another, asleep
      {600, 600, 2, 'R', true},     // a kernel thread
  };
  EXPECT_EQ(runnable_outside(threads, 100), (std::vector<pid_t>{400, 401}));
  EXPECT_EQ(runnable_outside(threads, 200), (std::vector<pid_t>{100, 101, 400, 401})) << "another root";
}

TEST(MachineWatch, BusyNeedsOtherThreadsSeenAgainAndAgain) {
  EXPECT_FALSE(busy_by_samples(0, 10));
  EXPECT_FALSE(busy_by_samples(1, 1)) << "once is a process passing by";
  EXPECT_FALSE(busy_by_samples(2, 7)) << "twice in seven: under a third";
  EXPECT_TRUE(busy_by_samples(2, 6));
  EXPECT_TRUE(busy_by_samples(5, 5));
}

TEST(MachineWatch, TwoTimingsCombineTheirSamples) {
  core::MachineState bench{1.5, 4, 2, false, "", 1, 1, 4};
  core::MachineState compare{0.8, 3, 2, false, "", 2, 1, 3};
  auto both = combined(bench, compare);
  EXPECT_DOUBLE_EQ(both.load_avg_1m, 1.5);
  EXPECT_EQ(both.running_max, 4);
  EXPECT_EQ(both.others_max, 2);
  EXPECT_EQ(both.others_seen, 2);
  EXPECT_EQ(both.samples, 7);
  EXPECT_FALSE(both.busy) << "2 of 7: under a third";
  compare.busy = true;
  EXPECT_TRUE(combined(bench, compare).busy);
  EXPECT_NE(both.detail.find("2 of 7 samples"), std::string::npos) << both.detail;
}

TEST(MachineWatch, ASpinningProcessMakesItBusyAndOurOwnBusyThreadsDoNot) {
  // Our own: two spinning threads and a spinning child process (the workbench's tree).
  std::atomic<bool> stop{false};
  std::vector<std::thread> ours;
  std::vector<pid_t> our_tids;
  std::atomic<int> started{0};
  std::vector<std::atomic<pid_t>> tids(2);
  for (int i = 0; i < 2; ++i)
    ours.emplace_back([&, i] {
      tids[size_t(i)] = ::gettid();
      ++started;
      while (!stop) {
      }
    });
  while (started < 2) {
  }
  for (auto& t : tids) our_tids.push_back(t);
  const pid_t child = ::fork();
  if (child == 0) spin_for(60);
  const pid_t outside = spinner_outside_the_tree();
  ASSERT_GT(outside, 0);

  MachineWatch watch;
  bool saw_outside = false;
  for (int i = 0; i < 5; ++i) {
    const auto seen = runnable_outside(machine_threads(), ::getpid());
    saw_outside = saw_outside || holds(seen, outside);
    for (pid_t tid : our_tids) EXPECT_FALSE(holds(seen, tid)) << "our own thread " << tid;
    EXPECT_FALSE(holds(seen, child)) << "our own child process";
    watch.sample();
  }
  const auto state = watch.state();
  stop = true;
  for (auto& t : ours) t.join();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::kill(outside, SIGKILL);

  EXPECT_TRUE(saw_outside) << "a spinning process is runnable whenever it is looked at";
  EXPECT_EQ(state.samples, 6);
  EXPECT_EQ(state.others_seen, 6) << state.detail;
  EXPECT_GE(state.others_max, 1);
  EXPECT_TRUE(state.busy) << state.detail;
}

}  // namespace
}  // namespace kwb::eval
