// The daemon's pre-started GPU runner sessions (eval/gpu_session_pool.hpp) and the GPU's gate
// their commands hold (eval/device_gate.hpp), on the fake driver.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>

#include "eval/device_gate.hpp"
#include "eval/gpu_session_pool.hpp"
#include "temp_dir.hpp"

namespace kwb::eval {
namespace {

using namespace std::chrono_literals;

GpuSessionOptions options(const std::filesystem::path& dir, std::filesystem::path runner) {
  std::filesystem::create_directories(dir / "jobs");
  const char* bwrap = std::getenv("KWB_BWRAP");
  return {std::move(runner), bwrap && *bwrap ? bwrap : "/usr/bin/bwrap", dir / "jobs", 10000,
#ifdef KWB_TEST_FAKE_LIBCUDA
          KWB_TEST_FAKE_LIBCUDA,
#else
          "",
#endif
          false};
}

TEST(GpuSessionPool, HandsEachStartedSessionToOneTakerAndStartsTheNext) {
#ifndef KWB_TEST_FAKE_LIBCUDA
  GTEST_SKIP() << "no fake driver in this build (CUDA toolkit not found)";
#else
  kwb::test::TempDir dir;
  GpuSessionPool pool(options(dir.path(), std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-gpu-runner"));
  auto a = pool.take(60s);
  ASSERT_TRUE(a) << "no session was started";
  EXPECT_TRUE(a->device.value("present", false)) << a->device.dump();
  EXPECT_NE(a->device.value("name", std::string()).find("Fake GPU"), std::string::npos) << a->device.dump();
  // The fake driver starts with 256 KiB of L2 set aside for persisting lines; the runner takes it
  // back to 0, so evict_last lines cannot outlive the flush between samples.
  EXPECT_EQ(a->device.value("l2_persisting_bytes", int64_t(-2)), 0) << a->device.dump();
  auto b = pool.take(60s);
  ASSERT_TRUE(b) << "the next session was not started";
  EXPECT_NE(a->job, b->job);  // never shared: each candidate gets its own sandbox and job folder
  EXPECT_NE(a->runner.get(), b->runner.get());
#endif
}

TEST(GpuSessionPool, GivesNothingWhenNoSessionCanStart) {
  kwb::test::TempDir dir;
  GpuSessionPool pool(options(dir.path(), dir.path() / "no-such-runner"));
  EXPECT_FALSE(pool.take(60s));  // returns as soon as the start failed, not after the wait
  EXPECT_FALSE(pool.take());
}

TEST(DeviceGate, OneGatePerGpuKeyAndNoneForAnUnboundSession) {
  auto a = device_gate("cuda:0000:19:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a, device_gate("cuda:0000:19:00.0"));
  EXPECT_NE(a, device_gate("cuda:0000:3b:00.0"));
  EXPECT_FALSE(device_gate(""));
}

// Two candidates on one lane (docs/architecture.md "Sharing a GPU"): a command waits while
// another session's command holds the GPU (here: the test holds its gate), and its timeout starts
// only once it has the GPU. The start-up is not gated (the pool starts a session while a
// candidate times).
TEST(DeviceGate, EveryCommandAfterTheStartWaitsForItsGpusGate) {
#ifndef KWB_TEST_FAKE_LIBCUDA
  GTEST_SKIP() << "no fake driver in this build (CUDA toolkit not found)";
#else
  kwb::test::TempDir dir;
  auto opt = options(dir.path(), std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-gpu-runner");
  opt.device_key = "cuda:gate-test";
  opt.command_timeout_ms = 300;
  auto gate = device_gate(opt.device_key);
  std::unique_lock held(*gate);
  auto started = start_gpu_session(opt);  // not gated: it must not wait for `held`
  ASSERT_TRUE(started) << started.error().what();
  auto& session = **started;
  ASSERT_TRUE(session.device.value("present", false)) << session.device.dump();
  using Clock = std::chrono::steady_clock;
  std::atomic<Clock::rep> asked{0};  // when the command was asked for (its thread may start late)
  auto reply = std::async(std::launch::async, [&] {
    asked = Clock::now().time_since_epoch().count();
    return session.runner->command({{"op", "stats"}}, 300, "stats");
  });
  // Bounded: a command that does not wait for the gate answers in a few milliseconds.
  EXPECT_EQ(reply.wait_for(1500ms), std::future_status::timeout) << "the command ran while its GPU was held";
  const auto released = Clock::now();
  held.unlock();
  auto r = reply.get();
  EXPECT_TRUE(r) << "the command's 300 ms timeout ran while it waited for the gate: " << r.error().reason;
  // It waited from (about) when it was asked for until the gate was released.
  const double held_ms =
      std::chrono::duration<double, std::milli>(released - Clock::time_point(Clock::duration(asked.load()))).count();
  EXPECT_GT(held_ms, 1000.0) << "the command's thread started late";
  EXPECT_GE(session.runner->gate_wait_ms(), held_ms - 50.0);
#endif
}

}  // namespace
}  // namespace kwb::eval
