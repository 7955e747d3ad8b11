// Device classes: the x86-64 level in a CPU class, the legacy "cpu-x86_64" read as the level looked
// up, and which names a class may have.
#include <gtest/gtest.h>

#include "library/device_class.hpp"
#include "library/dispatch.hpp"

namespace kwb::library {
namespace {

TEST(DeviceClass, TheHostCpuClassCarriesItsX86Level) {
  const int level = host_x86_level();
#if defined(__x86_64__)
  ASSERT_GE(level, 1);
  ASSERT_LE(level, 4);
  EXPECT_EQ(host_cpu_class(), "cpu-x86_64-v" + std::to_string(level));
  EXPECT_EQ(x86_level_of(host_cpu_class()), level);
  // What the compiler says about this CPU agrees with the level: -march=native code runs here.
  EXPECT_EQ(level >= 3, bool(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")));
  EXPECT_EQ(level >= 4, bool(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")));
#else
  EXPECT_EQ(level, 0);
  EXPECT_TRUE(host_cpu_class().starts_with("cpu-"));
#endif
  EXPECT_EQ(why_not_a_device_class(host_cpu_class()), "");
}

TEST(DeviceClass, LevelsAndNames) {
  EXPECT_EQ(x86_level_of("cpu-x86_64-v1"), 1);
  EXPECT_EQ(x86_level_of("cpu-x86_64-v4"), 4);
  EXPECT_EQ(x86_level_of("cpu-x86_64"), 0);
  EXPECT_EQ(x86_level_of("cpu-x86_64-v5"), 0);
  EXPECT_EQ(x86_level_of("cpu-x86_64-v33"), 0);
  EXPECT_EQ(x86_level_of("any"), 0);
  for (const char* ok : {"any", "cpu-x86_64-v2", "cpu-aarch64", "cuda-sm_90", "cuda-sm_100a"})
    EXPECT_EQ(why_not_a_device_class(ok), "") << ok;
  EXPECT_NE(why_not_a_device_class("cpu-x86_64").find("names no ISA level"), std::string::npos);
  EXPECT_NE(why_not_a_device_class("cpu-x86_64-v5").find("is not a CPU class"), std::string::npos);
  EXPECT_NE(why_not_a_device_class("sm_90").find("is not a device class"), std::string::npos);
  EXPECT_NE(why_not_a_device_class("cpu-").find("is not a device class"), std::string::npos);
}

TEST(DeviceClass, ALegacyEntryIsTheIncumbentOfEveryX86LevelWithoutItsOwn) {
  auto d = parse_dispatch(R"({"schema": "kwb.dispatch.v1", "entries": [
    {"op": "add", "variant": "f32", "backend": "cpu", "device_class": "any", "kernel": "add/cpu/seed.cpp", "entry": "kwb_add_f32"},
    {"op": "add", "variant": "f32", "backend": "cpu", "device_class": "cpu-x86_64", "kernel": "add/cpu/old.cpp", "entry": "kwb_add_f32"},
    {"op": "add", "variant": "f32", "backend": "cpu", "device_class": "cpu-x86_64-v4", "kernel": "add/cpu/wide.cpp", "entry": "kwb_add_f32"}]})");
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->incumbent("add", "f32", "cpu", "cpu-x86_64-v4")->kernel, "add/cpu/wide.cpp");
  EXPECT_EQ(d->incumbent("add", "f32", "cpu", "cpu-x86_64-v3")->kernel, "add/cpu/old.cpp");
  EXPECT_EQ(d->incumbent("add", "f32", "cpu", "cpu-x86_64-v1")->kernel, "add/cpu/old.cpp");
  EXPECT_EQ(d->incumbent("add", "f32", "cpu", "cpu-aarch64")->kernel, "add/cpu/seed.cpp");
  EXPECT_EQ(d->incumbent("add", "f32", "cpu", "any")->kernel, "add/cpu/seed.cpp");
}

}  // namespace
}  // namespace kwb::library
