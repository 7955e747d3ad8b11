// The machine's CPU calibration cache (eval/calibration_cache.hpp): where it lives, what it keeps,
// that a workspace without a calibration takes the machine's instead of measuring, and that a
// file that is not a calibration cache is reported and never overwritten.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <thread>
#include <vector>

#include "eval/calibration_cache.hpp"
#include "eval/cpu_device.hpp"
#include "store/device_repository.hpp"
#include "temp_dir.hpp"
#include "util/settings.hpp"

namespace {

using kwb::eval::CalibrationCache;
using kwb::test::TempDir;

kwb::store::DeviceRecord record(const std::string& id, double bandwidth) {
  kwb::store::DeviceRecord r;
  r.id = id;
  r.kind = "cpu";
  r.name = "test CPU";
  r.copy_bytes_per_s = bandwidth;
  r.details = {{"method", "test"}};
  r.calibrated_at = "2026-12-04T00:00:00Z";
  return r;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Sets an environment variable for the life of the object.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : m_name(name) {
    if (const char* old = ::getenv(name)) m_old = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~EnvVar() {
    if (m_old) ::setenv(m_name, m_old->c_str(), 1);
    else ::unsetenv(m_name);
  }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

TEST(CalibrationCache, TheSettingChoosesTheFileOrNone) {
  EXPECT_FALSE(CalibrationCache::from_setting("off").enabled());
  EXPECT_EQ(CalibrationCache::from_setting("/x/c.json").file(), "/x/c.json");
  auto by_default = [] { return kwb::util::Settings::from_environment().get("calibration-cache"); };
  EnvVar unset("KWB_CALIBRATION_CACHE", nullptr);  // ctest sets the suite's own
  {
    EnvVar xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(by_default(), "/xdg/kwb/calibrations.json");
  }
  {
    EnvVar xdg("XDG_CACHE_HOME", nullptr);
    EnvVar home("HOME", "/home/u");
    EXPECT_EQ(by_default(), "/home/u/.cache/kwb/calibrations.json");
  }
  {
    EnvVar xdg("XDG_CACHE_HOME", nullptr);
    EnvVar home("HOME", nullptr);
    EXPECT_EQ(by_default(), "off") << "no home, no cache";
    EXPECT_FALSE(CalibrationCache::from_setting(by_default()).enabled());
  }
  EnvVar set("KWB_CALIBRATION_CACHE", "/elsewhere/c.json");
  EXPECT_EQ(by_default(), "/elsewhere/c.json");
}

TEST(CalibrationCache, KeepsEveryDevicesEntryAcrossWritersAndReplacesOne) {
  TempDir dir;
  CalibrationCache cache(dir / "sub" / "calibrations.json");
  auto none = cache.find("cpu:a");
  ASSERT_TRUE(none) << none.error().what();
  EXPECT_FALSE(*none);
  // Eight writers at once, each its own device: every entry is there after.
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i)
    writers.emplace_back([&, i] { ASSERT_TRUE(cache.put(record("cpu:" + std::to_string(i), 1e9 * (i + 1)))); });
  for (auto& t : writers) t.join();
  for (int i = 0; i < 8; ++i) {
    auto found = cache.find("cpu:" + std::to_string(i));
    ASSERT_TRUE(found && *found) << i;
    EXPECT_DOUBLE_EQ((*found)->copy_bytes_per_s, 1e9 * (i + 1));
    EXPECT_EQ((*found)->details["method"], "test");
    EXPECT_EQ((*found)->calibrated_at, "2026-12-04T00:00:00Z");
  }
  ASSERT_TRUE(cache.put(record("cpu:3", 7e9)));
  EXPECT_DOUBLE_EQ((*cache.find("cpu:3"))->copy_bytes_per_s, 7e9);
  EXPECT_DOUBLE_EQ((*cache.find("cpu:4"))->copy_bytes_per_s, 5e9);
}

TEST(CalibrationCache, AFileThatIsNotACacheIsNamedAndNeverOverwritten) {
  TempDir dir;
  const auto file = dir / "notes.json";
  std::ofstream(file) << "{\"my\": \"notes\"}";
  CalibrationCache cache(file);
  auto found = cache.find("cpu:a");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().what().find(file.string()), std::string::npos) << found.error().what();
  EXPECT_NE(found.error().what().find("not a calibration cache"), std::string::npos) << found.error().what();
  EXPECT_FALSE(cache.put(record("cpu:a", 1e9)));
  EXPECT_EQ(read(file), "{\"my\": \"notes\"}");
  // An entry without a bandwidth is refused too, naming the device.
  std::ofstream(file) << R"({"schema": "kwb.calibrations.v1", "devices": {"cpu:a": {"kind": "cpu", "details": {}}}})";
  auto bad = cache.find("cpu:a");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what().find("cpu:a"), std::string::npos) << bad.error().what();
}

TEST(CalibrationCache, AWorkspaceWithoutACalibrationTakesTheMachinesInsteadOfMeasuring) {
  TempDir dir;
  CalibrationCache cache(dir / "calibrations.json");
  const auto here = kwb::eval::detect_cpu();
  ASSERT_TRUE(cache.put(record(here.id, 1.25e9)));  // no real copy measures exactly this
  auto db = kwb::store::Database::open(dir / "kwb.db");
  ASSERT_TRUE(db) << db.error().what();
  auto cpu = kwb::eval::cpu_device(*db, cache);
  ASSERT_TRUE(cpu) << cpu.error().what();
  EXPECT_EQ(cpu->calibration_source, "machine");
  EXPECT_FALSE(cpu->calibrated_now);
  EXPECT_DOUBLE_EQ(cpu->copy_bytes_per_s, 1.25e9);
  auto stored = kwb::store::DeviceRepository(*db).find(here.id);
  ASSERT_TRUE(stored && *stored);
  EXPECT_DOUBLE_EQ((*stored)->copy_bytes_per_s, 1.25e9);
  EXPECT_EQ((*stored)->details["from_calibration_cache"], cache.file().string());
  // From now on the workspace's own record answers, even with the cache gone.
  auto again = kwb::eval::cpu_device(*db, CalibrationCache{});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->calibration_source, "workspace");
  EXPECT_DOUBLE_EQ(again->copy_bytes_per_s, 1.25e9);
}

TEST(CalibrationCache, ForcedCalibrationMeasuresAndReplacesTheMachinesEntry) {
  TempDir dir;
  CalibrationCache cache(dir / "calibrations.json");
  const auto here = kwb::eval::detect_cpu();
  ASSERT_TRUE(cache.put(record(here.id, 1.25e9)));
  auto db = kwb::store::Database::open(dir / "kwb.db");
  ASSERT_TRUE(db);
  auto cpu = kwb::eval::cpu_device(*db, cache, /*force=*/true);
  ASSERT_TRUE(cpu) << cpu.error().what();
  EXPECT_TRUE(cpu->calibrated_now);
  EXPECT_EQ(cpu->calibration_source, "measured");
  EXPECT_GT(cpu->copy_bytes_per_s, 0);
  EXPECT_NE(cpu->copy_bytes_per_s, 1.25e9);
  auto entry = cache.find(here.id);
  ASSERT_TRUE(entry && *entry);
  EXPECT_DOUBLE_EQ((*entry)->copy_bytes_per_s, cpu->copy_bytes_per_s);
  EXPECT_EQ((*entry)->details["method"], "memcpy, one thread, best of 5, bytes read + written");
  EXPECT_FALSE((*entry)->calibrated_at.empty());
}

TEST(CalibrationCache, AnUnreadableCacheIsReportedAndTheCpuMeasuredInstead) {
  TempDir dir;
  std::ofstream(dir / "calibrations.json") << "not json";
  CalibrationCache cache(dir / "calibrations.json");
  auto db = kwb::store::Database::open(dir / "kwb.db");
  ASSERT_TRUE(db);
  auto cpu = kwb::eval::cpu_device(*db, cache);
  ASSERT_TRUE(cpu) << cpu.error().what();
  EXPECT_EQ(cpu->calibration_source, "measured");
  EXPECT_NE(cpu->cache_problem.find((dir / "calibrations.json").string()), std::string::npos) << cpu->cache_problem;
  EXPECT_EQ(read(dir / "calibrations.json"), "not json");
}

}  // namespace
