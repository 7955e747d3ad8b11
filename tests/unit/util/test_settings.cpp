#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "util/settings.hpp"

namespace kwb::util {
namespace {

// Clears every KWB_* variable of the settings table for the test and restores them afterwards.
class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& info : setting_table()) {
      const char* v = std::getenv(info.env);
      m_saved[info.env] = v ? std::optional<std::string>(v) : std::nullopt;
      ::unsetenv(info.env);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : m_saved) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> m_saved;
};

TEST_F(SettingsTest, TableIsWellFormed) {
  std::set<std::string> names;
  for (const auto& info : setting_table()) {
    EXPECT_TRUE(std::string(info.env).starts_with("KWB_")) << info.env;
    EXPECT_FALSE(std::string(info.description).empty()) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << "duplicate setting " << info.name;
  }
  EXPECT_GE(names.size(), 10u);
}

TEST_F(SettingsTest, Defaults) {
  auto s = Settings::from_environment();
  EXPECT_EQ(s.get("bwrap"), "/usr/bin/bwrap");
  EXPECT_EQ(s.get("cxx"), "g++");
  EXPECT_EQ(s.get_int("time-budget-ms"), 1000);
  EXPECT_EQ(s.get_int("compile-timeout-ms"), 60000);
  EXPECT_EQ(s.get_int("run-timeout-ms"), 10000);
  EXPECT_EQ(s.get_int("threads"), 1);
  // Computed defaults come from the source tree and the executable's folder.
  EXPECT_EQ(source_dir(), std::string(KWB_TEST_SOURCE_DIR));
  EXPECT_EQ(s.get("specs-dir"), source_dir() + "/specs");
  EXPECT_EQ(s.get("kernels-dir"), source_dir() + "/kernels");
  EXPECT_EQ(s.get("workspace"), source_dir() + "/workspace");
  EXPECT_EQ(s.get("runner"), executable_dir() + "/kwb-runner");
}

TEST_F(SettingsTest, EveryTableEntryHasANonEmptyValue) {
  auto s = Settings::from_environment();
  for (const auto& info : setting_table()) {
    // Empty by default: a list of extra spec folders (none); the Slurm settings that fall back to
    // the cluster's own defaults (partition) or to PATH, and the extra sbatch arguments (none).
    static const std::set<std::string> k_empty = {"specs", "slurm-partition", "slurm-gpu-partition",
                                                  "slurm-device-classes", "slurm-sbatch-args", "slurm-bin-dir"};
    if (k_empty.contains(info.name)) {
      EXPECT_EQ(s.get(info.name), "");
      continue;
    }
    EXPECT_FALSE(s.get(info.name).empty()) << info.name;
  }
}

TEST_F(SettingsTest, EnvironmentOverridesDefaults) {
  ::setenv("KWB_CXX", "clang++", 1);
  ::setenv("KWB_TIME_BUDGET_MS", "250", 1);
  ::setenv("KWB_SPECS_DIR", "/elsewhere/specs", 1);
  ::setenv("KWB_RUNNER", "/opt/kwb-runner", 1);
  auto s = Settings::from_environment();
  EXPECT_EQ(s.get("cxx"), "clang++");
  EXPECT_EQ(s.get_int("time-budget-ms"), 250);
  EXPECT_EQ(s.get("specs-dir"), "/elsewhere/specs");
  EXPECT_EQ(s.get("runner"), "/opt/kwb-runner");
  EXPECT_EQ(s.get("bwrap"), "/usr/bin/bwrap");  // untouched
}

TEST_F(SettingsTest, EmptyEnvironmentVariableKeepsTheDefault) {
  ::setenv("KWB_CXX", "", 1);
  ::setenv("KWB_WORKSPACE", "", 1);
  auto s = Settings::from_environment();
  EXPECT_EQ(s.get("cxx"), "g++");
  EXPECT_EQ(s.get("workspace"), source_dir() + "/workspace");
}

TEST_F(SettingsTest, SetOverridesEnvironment) {
  ::setenv("KWB_THREADS", "4", 1);
  auto s = Settings::from_environment();
  EXPECT_EQ(s.get_int("threads"), 4);
  s.set("threads", "8");
  EXPECT_EQ(s.get_int("threads"), 8);
  s.set("workspace", "/tmp/ws");
  EXPECT_EQ(s.get("workspace"), "/tmp/ws");
}

TEST_F(SettingsTest, UnknownNamesThrow) {
  auto s = Settings::from_environment();
  EXPECT_THROW(s.get("no-such-setting"), std::logic_error);
  EXPECT_THROW(s.get_int("no-such-setting"), std::logic_error);
  EXPECT_THROW(s.set("no-such-setting", "1"), std::logic_error);
  // set() must not have created the unknown name.
  EXPECT_THROW(s.get("no-such-setting"), std::logic_error);
}

TEST_F(SettingsTest, UnknownNameErrorNamesTheSetting) {
  auto s = Settings::from_environment();
  try {
    s.get("specsdir");
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("specsdir"), std::string::npos) << e.what();
  }
}

// A subcommand reads only what it declared (issue 17, point 12: its --help lists just those).
TEST_F(SettingsTest, LimitedSettingsRefuseUndeclaredReads) {
  auto s = Settings::from_environment();
  EXPECT_NO_THROW(s.get("gpu-clock"));  // not limited yet: everything is readable
  s.limit_to({"workspace"}, "kwb token list");
  EXPECT_NO_THROW(s.get("workspace"));
  try {
    s.get("gpu-clock");
    FAIL() << "an undeclared read went through";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'gpu-clock'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kwb token list"), std::string::npos) << e.what();
  }
  EXPECT_THROW(s.limit_to({"no-such-setting"}, "kwb x"), std::logic_error);
}

TEST_F(SettingsTest, ExecutableDirIsThisTestsFolder) {
  const std::string dir = executable_dir();
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "unit_util")) << dir;
}

}  // namespace
}  // namespace kwb::util
