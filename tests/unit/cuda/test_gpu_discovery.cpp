// Every GPU of a host found and checked in a sandbox of its own (eval::cuda_devices), on the
// fake driver presenting 1, 2 or 8 GPUs (docs/architecture.md "Lanes").
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "eval/cuda_device.hpp"
#include "fake_gpus.hpp"
#include "store/database.hpp"
#include "temp_dir.hpp"

namespace kwb::eval {
namespace {

using kwb::test::FakeGpus;

GpuSessionOptions options(const std::filesystem::path& dir, const std::filesystem::path& driver) {
  std::filesystem::create_directories(dir / "jobs");
  const char* bwrap = std::getenv("KWB_BWRAP");
  return {std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-gpu-runner", bwrap && *bwrap ? bwrap : "/usr/bin/bwrap",
          dir / "jobs", 20000, driver, false};
}

class GpuDiscovery : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
#ifndef KWB_TEST_FAKE_LIBCUDA
    GTEST_SKIP() << "no fake driver in this build (CUDA toolkit not found)";
#endif
  }
};

#ifdef KWB_TEST_FAKE_LIBCUDA
TEST_P(GpuDiscovery, FindsEveryGpuEachInASandboxThatSeesItAlone) {
  const int n = GetParam();
  kwb::test::TempDir dir;
  auto driver = FakeGpus::make(dir / "driver", n);
  auto db = store::Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  auto found = cuda_devices(*db, options(dir.path(), driver));
  ASSERT_TRUE(found) << found.error().what();
  ASSERT_EQ(found->size(), size_t(n));
  std::set<std::string> keys, uuids;
  for (int i = 0; i < n; ++i) {
    const auto& d = (*found)[size_t(i)];
    EXPECT_TRUE(d.present) << d.reason;
    EXPECT_EQ(d.ordinal, i);
    // cuda_devices checks that the sandbox bound to GPU i found GPU i and no other.
    EXPECT_EQ(d.pci_bus_id, FakeGpus::bus_id(i));
    EXPECT_EQ(d.key, "cuda:" + FakeGpus::bus_id(i));
    EXPECT_EQ(d.id, (*found)[0].id) << "GPUs of one model are one device class";
    EXPECT_EQ(d.describe(), (*found)[0].describe()) << "verdicts and tuning records name the class, not the GPU";
    EXPECT_EQ(d.lane_class(), "cuda:" + d.id);
    keys.insert(d.key);
    uuids.insert(d.uuid);
  }
  EXPECT_EQ(keys.size(), size_t(n));
  EXPECT_EQ(uuids.size(), size_t(n));
  EXPECT_TRUE(uuids.begin()->starts_with("GPU-")) << *uuids.begin();
}

INSTANTIATE_TEST_SUITE_P(Gpus, GpuDiscovery, ::testing::Values(1, 2, 8),
                         [](const auto& info) { return std::to_string(info.param) + "gpus"; });

TEST(GpuDiscoveryFailure, AGpuThatFailsItsWarmUpIsReportedAndTheOthersAreUsable) {
  kwb::test::TempDir dir;
  auto driver = FakeGpus::make(dir / "driver", 4, "2");
  auto db = store::Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  auto found = cuda_devices(*db, options(dir.path(), driver));
  ASSERT_TRUE(found) << found.error().what();
  ASSERT_EQ(found->size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*found)[size_t(i)].present, i != 2) << (*found)[size_t(i)].reason;
  const auto& bad = (*found)[2];
  EXPECT_EQ(bad.key, "cuda:" + FakeGpus::bus_id(2));
  EXPECT_NE(bad.reason.find("GPU 2"), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find(FakeGpus::bus_id(2)), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("CUDA_ERROR_ECC_UNCORRECTABLE"), std::string::npos) << bad.reason;
}

TEST(GpuDiscoveryFailure, ASessionOnOneGpuSeesThatGpuOnly) {
  kwb::test::TempDir dir;
  auto driver = FakeGpus::make(dir / "driver", 8);
  CudaDevice d;
  d.ordinal = 5;
  d.uuid = "GPU-6b776266-616b-6500-0000-000000000005";  // the fake's UUID of GPU 5
  auto s = start_gpu_session(on_device(options(dir.path(), driver), d));
  ASSERT_TRUE(s) << s.error().what();
  const auto& j = (*s)->device;
  EXPECT_EQ(j.value("pci_bus_id", std::string()), FakeGpus::bus_id(5)) << j.dump();
  ASSERT_TRUE(j.contains("all")) << j.dump();
  EXPECT_EQ(j["all"].size(), 1u) << "CUDA_VISIBLE_DEVICES in its sandbox hides the other GPUs: " << j["all"].dump();
}
#endif

TEST(NvidiaMinor, ReadsTheDriversGpuInformationByBusId) {
  kwb::test::TempDir dir;
  std::filesystem::create_directories(dir / "0000:19:00.0");
  std::ofstream(dir / "0000:19:00.0" / "information") << "Model: \t\t NVIDIA H200\nIRQ:   \t\t 300\nDevice Minor: \t 3\n";
  std::filesystem::create_directories(dir / "0000:3b:00.0");
  std::ofstream(dir / "0000:3b:00.0" / "information") << "Model: NVIDIA H200\nDevice Minor: 5\n";
  EXPECT_EQ(nvidia_minor("00000000:19:00.0", dir.path()), 3) << "an 8-digit domain, as CUDA may write it";
  EXPECT_EQ(nvidia_minor("0000:3B:00.0", dir.path()), 5) << "upper-case hex";
  EXPECT_EQ(nvidia_minor("0000:1a:00.0", dir.path()), -1) << "no such GPU";
  EXPECT_EQ(nvidia_minor("not a bus id", dir.path()), -1);
  EXPECT_EQ(nvidia_minor("0000:19:00.0", dir / "missing"), -1) << "no NVIDIA driver";
}

}  // namespace
}  // namespace kwb::eval
