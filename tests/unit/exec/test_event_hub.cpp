// exec::EventHub through its public header: per-candidate versions, a wait that a publish of its
// candidate ends (and another candidate's does not), the timeout, and shutdown.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "exec/event_hub.hpp"
#include "thread_state.hpp"

namespace kwb::exec {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// hub.wait(id, seen, timeout) on a thread of its own, once that thread sleeps inside the wait
// (or after 10 s: the caller's ASSERT on `asleep` says which). A wait still going when the test
// ends (it failed) is woken by every means there is, so that the test ends too.
struct Waiter {
  EventHub* hub = nullptr;
  std::string id;
  std::future<uint64_t> result;
  bool asleep = false;
  Waiter() = default;
  Waiter(Waiter&&) = default;
  ~Waiter() {
    if (!result.valid() || result.wait_for(0s) == std::future_status::ready) return;
    hub->shutdown();
    hub->publish(id);
  }
};
Waiter start_wait(EventHub& hub, std::string id, uint64_t seen, std::chrono::milliseconds timeout) {
  std::promise<pid_t> tid;
  auto tid_known = tid.get_future();
  Waiter w;
  w.hub = &hub;
  w.id = id;
  w.result = std::async(std::launch::async, [&hub, id, seen, timeout, tid = std::move(tid)]() mutable {
    tid.set_value(kwb::test::this_thread_id());
    return hub.wait(id, seen, timeout);
  });
  w.asleep = kwb::test::wait_until_asleep(tid_known.get());
  return w;
}

TEST(EventHub, VersionsCountThePublishesOfEachCandidate) {
  EventHub hub;
  EXPECT_EQ(hub.version("c-a"), 0u);
  hub.publish("c-a");
  hub.publish("c-a");
  hub.publish("c-b");
  EXPECT_EQ(hub.version("c-a"), 2u);
  EXPECT_EQ(hub.version("c-b"), 1u);
  EXPECT_EQ(hub.version("c-never"), 0u);
}

TEST(EventHub, AWaitReturnsAtOnceWhenItsVersionIsAlreadyBehind) {
  EventHub hub;
  hub.publish("c-a");
  auto t0 = Clock::now();
  EXPECT_EQ(hub.wait("c-a", 0, 30s), 1u);
  EXPECT_LT(Clock::now() - t0, 10s);
}

TEST(EventHub, APublishOfItsCandidateWakesTheWait) {
  EventHub hub;
  Waiter w = start_wait(hub, "c-a", 0, 60s);
  ASSERT_TRUE(w.asleep);
  EXPECT_EQ(w.result.wait_for(0s), std::future_status::timeout);
  hub.publish("c-a");
  ASSERT_EQ(w.result.wait_for(10s), std::future_status::ready);  // not the 60 s timeout
  EXPECT_EQ(w.result.get(), 1u);
}

TEST(EventHub, OtherCandidatesPublishesDoNotEndAWait) {
  EventHub hub;
  auto t0 = Clock::now();
  Waiter w = start_wait(hub, "c-a", 0, 300ms);
  ASSERT_TRUE(w.asleep);
  for (int i = 0; i < 20; ++i) hub.publish("c-b");
  ASSERT_EQ(w.result.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(w.result.get(), 0u);  // timed out with its version unchanged
  EXPECT_GE(Clock::now() - t0, 300ms);
  EXPECT_EQ(hub.version("c-b"), 20u);
}

TEST(EventHub, ATimeoutReturnsTheUnchangedVersion) {
  EventHub hub;
  hub.publish("c-a");
  auto t0 = Clock::now();
  EXPECT_EQ(hub.wait("c-a", 1, 100ms), 1u);
  EXPECT_GE(Clock::now() - t0, 100ms);
}

TEST(EventHub, ShutdownEndsEveryWaitAndLaterOnesAtOnce) {
  EventHub hub;
  EXPECT_FALSE(hub.is_shutdown());
  std::vector<Waiter> waits;
  for (const char* id : {"c-a", "c-b", "c-a"}) {
    waits.push_back(start_wait(hub, id, 0, 60s));
    ASSERT_TRUE(waits.back().asleep);
  }
  hub.shutdown();
  for (auto& w : waits) {
    ASSERT_EQ(w.result.wait_for(10s), std::future_status::ready);  // not the 60 s timeout
    EXPECT_EQ(w.result.get(), 0u);
  }
  EXPECT_TRUE(hub.is_shutdown());
  auto t0 = Clock::now();
  EXPECT_EQ(hub.wait("c-new", 0, 60s), 0u);
  EXPECT_LT(Clock::now() - t0, 10s);
}

}  // namespace
}  // namespace kwb::exec
