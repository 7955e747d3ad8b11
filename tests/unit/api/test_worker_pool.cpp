#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <condition_variable>
#include <mutex>

#include "api/worker_pool.hpp"

namespace {

// A full pool says no at once instead of queueing without bound.
TEST(WorkerPool, RefusesWorkBeyondItsThreadsAndQueue) {
  kwb::api::WorkerPool pool(2, 1);
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> started{0}, ran{0};
  auto blocker = [&] {
    ++started;
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return release; });
    ++ran;
  };
  EXPECT_TRUE(pool.post(blocker));
  EXPECT_TRUE(pool.post(blocker));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (started < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  ASSERT_EQ(started, 2);
  EXPECT_TRUE(pool.post(blocker));   // queued
  EXPECT_FALSE(pool.post(blocker));  // two busy, queue full
  {
    std::lock_guard lock(m);
    release = true;
  }
  cv.notify_all();
  pool.shutdown();
  EXPECT_EQ(ran, 3);
  EXPECT_FALSE(pool.post(blocker));  // after shutdown
}

}  // namespace
