// exec::FairQueue through its public header: round-robin across tokens (oldest first within one),
// remove, a pop that blocks until a push, and stop.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "exec/fair_queue.hpp"
#include "thread_state.hpp"

namespace kwb::exec {
namespace {

using namespace std::chrono_literals;

// q.pop() on a thread of its own, once that thread sleeps inside the pop (or after 10 s: the
// caller's ASSERT on `asleep` says which). A pop still waiting when the test ends (it failed) is
// woken by a stop and pushes, so that the test ends too.
struct Popper {
  FairQueue* q = nullptr;
  std::future<std::optional<std::string>> result;
  bool asleep = false;
  Popper() = default;
  Popper(Popper&&) = default;
  ~Popper() {
    if (!result.valid()) return;
    q->stop();
    // A push wakes one waiting pop, maybe another Popper's: push until this one has returned.
    for (int i = 0; i < 100 && result.wait_for(0s) != std::future_status::ready; ++i) {
      q->push(0, "unblock");
      result.wait_for(100ms);
    }
  }
};
Popper start_pop(FairQueue& q) {
  std::promise<pid_t> tid;
  auto tid_known = tid.get_future();
  Popper p;
  p.q = &q;
  p.result = std::async(std::launch::async, [&q, tid = std::move(tid)]() mutable {
    tid.set_value(kwb::test::this_thread_id());
    return q.pop();
  });
  p.asleep = kwb::test::wait_until_asleep(tid_known.get());
  return p;
}

std::vector<std::string> pop_n(FairQueue& q, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    auto id = q.pop();
    if (!id) break;
    out.push_back(*id);
  }
  return out;
}

TEST(FairQueue, ServesTokensInTurnAndEachTokensItemsOldestFirst) {
  FairQueue q;
  for (const char* id : {"a1", "a2", "a3"}) q.push(1, id);
  q.push(2, "b1");
  for (const char* id : {"c1", "c2"}) q.push(3, id);
  EXPECT_EQ(q.size(), 6u);
  // A busy token (1) gets one turn per round, not its whole backlog first.
  EXPECT_EQ(pop_n(q, 6), (std::vector<std::string>{"a1", "b1", "c1", "a2", "c2", "a3"}));
  EXPECT_EQ(q.size(), 0u);
}

TEST(FairQueue, ATokenThatArrivesLateIsServedInTheNextTurn) {
  FairQueue q;
  for (const char* id : {"x1", "x2", "x3"}) q.push(5, id);
  EXPECT_EQ(q.pop(), "x1");
  q.push(7, "y1");  // after token 5 in the round
  q.push(-4, "z1");  // before token 5: its turn comes when the round starts again
  EXPECT_EQ(pop_n(q, 4), (std::vector<std::string>{"y1", "z1", "x2", "x3"}));
}

TEST(FairQueue, RemoveTakesOutAQueuedItemOnce) {
  FairQueue q;
  q.push(1, "a");
  q.push(1, "b");
  q.push(2, "c");
  EXPECT_TRUE(q.remove("b"));
  EXPECT_FALSE(q.remove("b"));
  EXPECT_FALSE(q.remove("never-queued"));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_TRUE(q.remove("c"));  // token 2's only item: the token leaves the rotation
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.pop(), "a");
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.remove("a"));  // popped already
}

TEST(FairQueue, PopWaitsForAPush) {
  FairQueue q;
  Popper p = start_pop(q);
  ASSERT_TRUE(p.asleep);
  EXPECT_EQ(p.result.wait_for(0s), std::future_status::timeout);  // nothing queued: still waiting
  q.push(9, "late");
  ASSERT_EQ(p.result.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(p.result.get(), "late");
}

TEST(FairQueue, StopWakesEveryWaitingPopWithNothing) {
  FairQueue q;
  std::vector<Popper> pops;
  for (int i = 0; i < 3; ++i) {
    pops.push_back(start_pop(q));
    ASSERT_TRUE(pops.back().asleep);
  }
  q.stop();
  for (auto& p : pops) {
    ASSERT_EQ(p.result.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(p.result.get(), std::nullopt);
  }
  // Stopped stays stopped: what is still queued is not handed out (the daemon queues it again at
  // its next start).
  q.push(1, "after-stop");
  EXPECT_EQ(q.pop(), std::nullopt);
}

TEST(FairQueue, ManyProducersAndConsumersLoseAndRepeatNothing) {
  FairQueue q;
  constexpr int k_producers = 4, k_each = 250, k_consumers = 3;
  std::mutex m;
  std::condition_variable cv;
  std::multiset<std::string> got;
  std::vector<std::thread> consumers;
  for (int c = 0; c < k_consumers; ++c)
    consumers.emplace_back([&] {
      while (auto id = q.pop()) {
        std::lock_guard lock(m);
        got.insert(*id);
        cv.notify_all();
      }
    });
  std::vector<std::thread> producers;
  for (int p = 0; p < k_producers; ++p)
    producers.emplace_back([&, p] {
      for (int i = 0; i < k_each; ++i) q.push(p, std::to_string(p) + ":" + std::to_string(i));
    });
  for (auto& t : producers) t.join();
  bool all = false;
  {
    std::unique_lock lock(m);
    all = cv.wait_for(lock, 30s, [&] { return got.size() == size_t(k_producers * k_each); });
  }
  q.stop();
  for (int c = 0; c < k_consumers; ++c) q.push(0, "after-stop");  // wakes each consumer even if stop() did not
  for (auto& t : consumers) t.join();
  ASSERT_TRUE(all) << got.size() << " of " << k_producers * k_each;
  EXPECT_EQ(got.size(), size_t(k_producers * k_each));
  for (int p = 0; p < k_producers; ++p)
    for (int i = 0; i < k_each; ++i) EXPECT_EQ(got.count(std::to_string(p) + ":" + std::to_string(i)), 1u);
  EXPECT_EQ(got.count("after-stop"), 0u);  // nothing is handed out once stopped
}

}  // namespace
}  // namespace kwb::exec
