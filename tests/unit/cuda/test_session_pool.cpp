// The daemon's pre-started GPU runner sessions (eval/gpu_session_pool.hpp), on the fake driver.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

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

}  // namespace
}  // namespace kwb::eval
