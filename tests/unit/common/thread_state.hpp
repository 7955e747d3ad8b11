#pragma once
// Whether another thread of this process is blocked (Linux: its state in /proc is S, sleeping),
// for tests of blocking calls: a test polls, with a deadline, until the thread it started sleeps
// inside the call, and only then does what should wake it, so that the wake-up is what is tested
// rather than a call that had not begun to wait yet. No sleep stands in for the condition.
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace kwb::test {

// This thread's id, as /proc/self/task/<tid> names it.
inline pid_t this_thread_id() { return ::gettid(); }

// The state letter of thread `tid` of this process (R, S, D, ...); '?' when unreadable.
inline char thread_state(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto name_end = text.rfind(')');  // the command name may hold spaces and parentheses
  return name_end == std::string::npos || name_end + 2 >= text.size() ? '?' : text[name_end + 2];
}

// Polls until thread `tid` sleeps, or `timeout` passes; true when it sleeps.
inline bool wait_until_asleep(pid_t tid, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (thread_state(tid) == 'S') return true;
    std::this_thread::yield();
  }
  return false;
}

}  // namespace kwb::test
