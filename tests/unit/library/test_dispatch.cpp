// dispatch.json: parsing with located errors, stable text, incumbent lookup with the "any" fallback.
#include <gtest/gtest.h>

#include "library/dispatch.hpp"
#include "library/seed.hpp"

namespace kwb::library {
namespace {

const char* k_two = R"({"schema": "kwb.dispatch.v1", "entries": [
  {"op": "softmax", "variant": "f32", "backend": "cuda", "device_class": "any", "kernel": "softmax/cuda/a.cu"},
  {"op": "softmax", "variant": "f32", "backend": "cuda", "device_class": "cuda-sm_90", "kernel": "softmax/cuda/b.cu",
   "candidate": "c-0123456789abcdef",
   "configs": [{"workload": "big", "params": {"rows": 4096, "cols": 4096}, "tune": {"BLOCK": 256}, "median_ns": 1200.5}]}
]})";

TEST(Dispatch, ParsesAndFindsTheDeviceClassBeforeAny) {
  auto d = parse_dispatch(k_two);
  ASSERT_TRUE(d) << d.error().what();
  ASSERT_EQ(d->entries.size(), 2u);
  EXPECT_EQ(d->incumbent("softmax", "f32", "cuda", "cuda-sm_90")->kernel, "softmax/cuda/b.cu");
  EXPECT_EQ(d->incumbent("softmax", "f32", "cuda", "cuda-sm_80")->kernel, "softmax/cuda/a.cu");
  EXPECT_EQ(d->incumbent("softmax", "f32", "cpu", "cpu-x86_64-v3"), nullptr);
  const auto& c = d->find("softmax", "f32", "cuda", "cuda-sm_90")->configs.at(0);
  EXPECT_EQ(c.tune.at("BLOCK"), 256);
  EXPECT_EQ(c.params.at("cols"), 4096);
  EXPECT_DOUBLE_EQ(*c.median_ns, 1200.5);
}

TEST(Dispatch, TextRoundTripsAndUpsertReplacesTheSameKey) {
  auto d = parse_dispatch(k_two);
  ASSERT_TRUE(d);
  auto again = parse_dispatch(dispatch_text(*d));
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_EQ(dispatch_text(*again), dispatch_text(*d));
  DispatchEntry e{"softmax", "f32", "cuda", "any", "softmax/cuda/c.cu", "", "c-1111111111111111", {}};
  again->upsert(e);
  EXPECT_EQ(again->entries.size(), 2u);
  EXPECT_EQ(again->incumbent("softmax", "f32", "cuda", "cuda-sm_80")->kernel, "softmax/cuda/c.cu");
  e.op = "add";
  again->upsert(e);
  EXPECT_EQ(again->entries.front().op, "add");  // kept sorted
}

TEST(Dispatch, ErrorsNameTheEntryAndField) {
  struct Case {
    std::string text, where;
  } cases[] = {
      {"{", "not valid JSON"},
      {R"({"schema": "v0", "entries": []})", "schema"},
      {R"({"schema": "kwb.dispatch.v1", "entries": [{"op": "a"}]})", "entries[0].variant"},
      {R"({"schema": "kwb.dispatch.v1", "entries": [{"op": "a", "variant": "f32", "backend": "tpu",
          "device_class": "any", "kernel": "a.cpp"}]})", "entries[0].backend"},
      {R"({"schema": "kwb.dispatch.v1", "entries": [{"op": "a", "variant": "f32", "backend": "cpu",
          "device_class": "any", "kernel": "../../etc/passwd"}]})", "entries[0].kernel"},
      {R"({"schema": "kwb.dispatch.v1", "entries": [{"op": "a", "variant": "f32", "backend": "cpu",
          "device_class": "any", "kernel": "a.cpp", "configs": [{"workload": "w", "tune": {"B": "x"}}]}]})",
       "entries[0].configs[0].tune.B"},
      {R"({"schema": "kwb.dispatch.v1", "entries": [
          {"op": "a", "variant": "f32", "backend": "cpu", "device_class": "any", "kernel": "a.cpp"},
          {"op": "a", "variant": "f32", "backend": "cpu", "device_class": "any", "kernel": "b.cpp"}]})",
       "entries[1]"},
  };
  for (const auto& c : cases) {
    auto d = parse_dispatch(c.text);
    ASSERT_FALSE(d) << c.text;
    EXPECT_NE(d.error().what().find(c.where), std::string::npos) << d.error().what();
  }
}

TEST(Seed, EveryShippedKernelIsTheIncumbentOfItsKey) {
  auto files = seed_files(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "kernels");
  ASSERT_TRUE(files) << files.error().what();
  auto d = parse_dispatch(files->at("dispatch.json"));
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_GE(d->entries.size(), 18u);
  for (const auto& e : d->entries) {
    EXPECT_EQ(e.device_class, "any");
    EXPECT_TRUE(files->contains(e.kernel)) << e.kernel;
    if (e.backend == "cpu") EXPECT_EQ(e.entry, "kwb_" + e.op + "_" + e.variant) << e.kernel;
  }
  EXPECT_NE(d->find("gemm", "bf16", "cpu", "any"), nullptr);
  EXPECT_NE(d->find("softmax", "f32", "cuda", "any"), nullptr);
}

}  // namespace
}  // namespace kwb::library
