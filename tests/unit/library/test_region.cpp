// Shape regions (docs/library.md "Shape regions"): parsing with located errors, containment and
// overlap, dispatch.json entries with regions (the overlap check, the lookup by params, the order
// an export tries them in), seed kernels that declare regions, and the decision per region.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "library/dispatch.hpp"
#include "library/region.hpp"
#include "library/region_decision.hpp"
#include "library/seed.hpp"
#include "temp_dir.hpp"

namespace kwb::library {
namespace {

constexpr int64_t k_max = std::numeric_limits<int64_t>::max();

Region region_of(const char* text) {
  auto r = parse_region(nlohmann::json::parse(text), "region");
  if (!r) throw std::runtime_error(r.error().what());
  return *r;
}

TEST(Region, ParsesClosedRangesAndNamesTheBadField) {
  Region r = region_of(R"({"n": [1, 65535], "cols": [8, 8]})");
  EXPECT_EQ(r.bounds.at("n"), std::make_pair(int64_t(1), int64_t(65535)));
  EXPECT_EQ(r.text(), "cols in [8, 8] and n in [1, 65535]");
  EXPECT_EQ(region_json(r).dump(), R"({"cols":[8,8],"n":[1,65535]})");
  EXPECT_EQ(Region{}.text(), "the whole space");
  auto bad = parse_region(nlohmann::json::parse(R"({"n": [5, 1]})"), "x.json: region");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "x.json: region.n");
  EXPECT_NE(bad.error().message.find("empty"), std::string::npos);
  EXPECT_FALSE(parse_region(nlohmann::json::parse(R"({"n": [1]})"), "r"));
  EXPECT_FALSE(parse_region(nlohmann::json::parse(R"({"n": [1.5, 2]})"), "r"));
  EXPECT_FALSE(parse_region(nlohmann::json::parse(R"([1, 2])"), "r"));
}

TEST(Region, ContainsChecksEveryBoundAndIgnoresOtherParams) {
  Region r = region_of(R"({"n": [1, 65535]})");
  EXPECT_TRUE(r.contains({{"n", 1}}));
  EXPECT_TRUE(r.contains({{"n", 65535}, {"BLOCK", 256}}));
  EXPECT_FALSE(r.contains({{"n", 65536}}));
  EXPECT_FALSE(r.contains({{"n", 0}}));
  EXPECT_FALSE(r.contains({{"rows", 4}}));  // a bounded param that is absent: outside
  EXPECT_TRUE(Region{}.contains({{"n", 7}}));
}

TEST(Region, OverlapNeedsEveryCommonParamToIntersect) {
  Region small = region_of(R"({"n": [1, 65535]})"), large = region_of(R"({"n": [65536, 9223372036854775807]})");
  EXPECT_FALSE(small.overlaps(large));
  EXPECT_FALSE(large.overlaps(small));
  EXPECT_TRUE(small.overlaps(region_of(R"({"n": [65535, 70000]})")));
  EXPECT_TRUE(small.overlaps(Region{}));                            // the whole space overlaps everything
  EXPECT_TRUE(small.overlaps(region_of(R"({"cols": [1, 2]})")));  // n unbounded there
  EXPECT_TRUE(Region{}.covers(small));
  EXPECT_TRUE(large.covers(region_of(R"({"n": [70000, 80000], "cols": [1, 2]})")));
  EXPECT_FALSE(small.covers(region_of(R"({"n": [60000, 70000]})")));
  EXPECT_FALSE(small.covers(Region{}));
  Region a = region_of(R"({"rows": [1, 10], "cols": [1, 10]})"), b = region_of(R"({"rows": [5, 20], "cols": [11, 20]})");
  EXPECT_FALSE(a.overlaps(b));  // the rows meet, the cols do not
  EXPECT_EQ(large.text(), "n in [65536, max]");
}

std::string entry(const char* cls, const char* kernel, const char* region) {
  std::string e = std::string(R"({"op": "vector_add", "variant": "f32", "backend": "cpu", "device_class": ")") + cls +
                  R"(", "kernel": ")" + kernel + R"(", "entry": "kwb_vector_add_f32")";
  if (region) e += std::string(R"(, "region": )") + region;
  return e + "}";
}

std::string dispatch_of(std::vector<std::string> entries) {
  std::string s = R"({"schema": "kwb.dispatch.v1", "entries": [)";
  for (size_t i = 0; i < entries.size(); ++i) s += (i ? ", " : "") + entries[i];
  return s + "]}";
}

const std::string k_regional = dispatch_of({entry("any", "vector_add/cpu/small.cpp", R"({"n": [1, 1500000]})"),
                                            entry("any", "vector_add/cpu/large.cpp", R"({"n": [1500001, 9223372036854775807]})"),
                                            entry("cpu-x86_64-v3", "vector_add/cpu/big3.cpp", R"({"n": [1500001, 9223372036854775807]})")});

TEST(DispatchRegions, TheLookupTakesTheRegionHoldingTheParamsClassByClass) {
  auto d = parse_dispatch(k_regional);
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64-v3", {{"n", 1048576}})->kernel, "vector_add/cpu/small.cpp");
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64-v3", {{"n", 2097152}})->kernel, "vector_add/cpu/big3.cpp");
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64-v2", {{"n", 2097152}})->kernel, "vector_add/cpu/large.cpp");
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64-v3", {{"n", 0}}), nullptr);  // in no region
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64-v3"), nullptr);  // no whole-space entry
  EXPECT_TRUE(d->regional("vector_add", "f32", "cpu", "cpu-x86_64-v3"));
  std::vector<std::string> order;
  for (const auto* e : d->serving("vector_add", "f32", "cpu", "cpu-x86_64-v3")) order.push_back(e->kernel);
  EXPECT_EQ(order, (std::vector<std::string>{"vector_add/cpu/big3.cpp", "vector_add/cpu/small.cpp",
                                             "vector_add/cpu/large.cpp"}));  // class by class
  // The text keeps the regions and reads back the same; an entry without one has no field.
  auto again = parse_dispatch(dispatch_text(*d));
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_EQ(dispatch_text(*again), dispatch_text(*d));
  EXPECT_NE(dispatch_text(*d).find(R"("region")"), std::string::npos);
  auto plain = parse_dispatch(dispatch_of({entry("any", "vector_add/cpu/v.cpp", nullptr)}));
  ASSERT_TRUE(plain);
  EXPECT_EQ(dispatch_text(*plain).find("region"), std::string::npos);
  EXPECT_FALSE(plain->regional("vector_add", "f32", "cpu", "any"));
}

TEST(DispatchRegions, AWholeSpaceEntryShadowsTheClassesBelowIt) {
  auto d = parse_dispatch(dispatch_of({entry("any", "vector_add/cpu/small.cpp", R"({"n": [1, 1500000]})"),
                                       entry("cpu-x86_64-v3", "vector_add/cpu/all3.cpp", nullptr)}));
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "cpu-x86_64-v3", {{"n", 5}})->kernel, "vector_add/cpu/all3.cpp");
  EXPECT_FALSE(d->regional("vector_add", "f32", "cpu", "cpu-x86_64-v3"));
  EXPECT_TRUE(d->regional("vector_add", "f32", "cpu", "cpu-x86_64-v2"));
}

TEST(DispatchRegions, OverlappingRegionsOfOneClassAreAnErrorNamingBothEntries) {
  auto d = parse_dispatch(dispatch_of({entry("any", "vector_add/cpu/a.cpp", R"({"n": [1, 100]})"),
                                       entry("any", "vector_add/cpu/b.cpp", R"({"n": [100, 200]})")}));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().where, "dispatch.json: entries[1].region");
  EXPECT_NE(d.error().message.find("overlaps entries[0] (vector_add/cpu/a.cpp, n in [1, 100])"), std::string::npos)
      << d.error().message;
  auto whole = parse_dispatch(dispatch_of({entry("any", "vector_add/cpu/a.cpp", nullptr),
                                           entry("any", "vector_add/cpu/b.cpp", R"({"n": [100, 200]})")}));
  ASSERT_FALSE(whole);
  EXPECT_EQ(whole.error().where, "dispatch.json: entries[1].region");
  auto bad = parse_dispatch(dispatch_of({entry("any", "vector_add/cpu/a.cpp", R"({"n": [3, 1]})")}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "dispatch.json: entries[0].region.n");
  // Other classes may hold the same region; upsert then overlap() finds a clash made in code.
  auto ok = parse_dispatch(k_regional);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->overlap(), "");
  DispatchEntry clash = ok->entries.front();
  clash.kernel = "vector_add/cpu/c.cpp";
  clash.region = region_of(R"({"n": [1000, 2000000]})");
  ok->upsert(clash);
  EXPECT_NE(ok->overlap().find("vector_add/cpu/c.cpp (n in [1000, 2000000]) overlaps"), std::string::npos) << ok->overlap();
}

void write_kernel(const std::filesystem::path& kernels, const std::string& name, const std::string& region) {
  auto dir = kernels / "vector_add" / "cpu";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / (name + ".cpp")) << "// " << name << "\n";
  std::ofstream(dir / (name + ".json")) << R"({"op": "vector_add", "variant": "f32", "backend": "cpu",
    "entry": "kwb_vector_add_f32")" << (region.empty() ? "" : ", \"region\": " + region) << "}";
}

TEST(SeedRegions, DisjointRegionsSeedTwoIncumbentsAndAnOverlapNamesTheFileAndField) {
  test::TempDir dir;
  write_kernel(dir / "k", "small", R"({"n": [1, 1500000]})");
  write_kernel(dir / "k", "large", R"({"n": [1500001, 9223372036854775807]})");
  auto files = seed_files(dir / "k");
  ASSERT_TRUE(files) << files.error().what();
  auto d = parse_dispatch(files->at("dispatch.json"));
  ASSERT_TRUE(d) << d.error().what();
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "any", {{"n", 7}})->kernel, "vector_add/cpu/small.cpp");
  EXPECT_EQ(d->incumbent("vector_add", "f32", "cpu", "any", {{"n", 1500001}})->region.bounds.at("n").second, k_max);

  write_kernel(dir / "k", "tiny", R"({"n": [1000, 2000]})");  // read after small.json (path order)
  auto clash = seed_files(dir / "k");
  ASSERT_FALSE(clash);
  EXPECT_NE(clash.error().where.find("tiny.json: region"), std::string::npos) << clash.error().what();
  EXPECT_NE(clash.error().message.find("overlaps the region of vector_add/cpu/small.cpp"), std::string::npos)
      << clash.error().message;
}

core::Comparison comparison(double ratio, const char* label) { return {label, ratio, ratio * 0.98, ratio * 1.02}; }

TEST(RegionDecision, APromotableRegionIsReadBackFromTheStoredDecisionAndTheOtherIsNot) {
  auto d = parse_dispatch(k_regional);
  ASSERT_TRUE(d);
  core::Workload n1m{"n1M", {{"n", 1048576}}}, n2m{"n2M", {{"n", 2097152}}}, n4m{"n4M", {{"n", 4194304}}};
  auto shares = shares_of(*d, "vector_add", "f32", "cpu", "cpu-x86_64-v2", {&n1m, &n2m, &n4m});
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].incumbent->kernel, "vector_add/cpu/small.cpp");
  EXPECT_EQ(shares[1].workloads, (std::vector<std::string>{"n2M", "n4M"}));
  EXPECT_TRUE(regions_without_workloads(*d, "vector_add", "f32", "cpu", "cpu-x86_64-v2", shares).empty());
  // On v3 the promoted big3.cpp shadows large.cpp's region: not a region without a workload.
  auto v3 = shares_of(*d, "vector_add", "f32", "cpu", "cpu-x86_64-v3", {&n1m, &n2m});
  EXPECT_EQ(v3[1].incumbent->kernel, "vector_add/cpu/big3.cpp");
  EXPECT_TRUE(regions_without_workloads(*d, "vector_add", "f32", "cpu", "cpu-x86_64-v3", v3).empty());
  auto only_small = shares_of(*d, "vector_add", "f32", "cpu", "cpu-x86_64-v2", {&n1m});
  auto empty = regions_without_workloads(*d, "vector_add", "f32", "cpu", "cpu-x86_64-v2", only_small);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0]->kernel, "vector_add/cpu/large.cpp");

  core::Decision small{false, "not promotable: 0.100x geomean, n1M slower", {}, {"n1M"}, {}};
  core::Decision large{true, "promotable: 10.000x geomean", {}, {}, {"n2M", "n4M"}};
  core::Decision merged = merge_regions({{shares[0], small, ""}, {shares[1], large, ""}});
  EXPECT_TRUE(merged.promotable);
  EXPECT_NE(merged.reason.find("promotable in region n in [1500001, max] (vector_add/cpu/large.cpp)"), std::string::npos)
      << merged.reason;
  EXPECT_NE(merged.reason.find("not in region n in [1, 1500000]"), std::string::npos) << merged.reason;
  core::Verdict v;
  v.summary.decision = merged;
  for (auto [name, ratio] : {std::pair{"n1M", 0.1}, {"n2M", 10.0}, {"n4M", 10.0}}) {
    core::WorkloadResult w;
    w.name = name, w.kind = "bench", w.vs_incumbent = ratio, w.comparison = comparison(ratio, "faster");
    v.workloads.push_back(w);
  }
  EXPECT_FALSE(region_won(shares[0].workloads, v));
  EXPECT_TRUE(region_won(shares[1].workloads, v));
  // A region's wins count only where the region is promotable: they are left out otherwise.
  core::Decision mixed{false, "not promotable: too noisy", {"n4M"}, {}, {"n2M"}};
  core::Decision none = merge_regions({{shares[0], small, ""}, {shares[1], mixed, ""}});
  EXPECT_FALSE(none.promotable);
  EXPECT_TRUE(none.wins.empty());
  v.summary.decision = none;
  EXPECT_FALSE(region_won(shares[1].workloads, v));
  // A region not compared (its incumbent could not be prepared) is not promotable, and says why.
  core::Decision skipped = merge_regions({{shares[0], std::nullopt, "the incumbent could not be prepared"}});
  EXPECT_FALSE(skipped.promotable);
  EXPECT_NE(skipped.reason.find("the incumbent could not be prepared"), std::string::npos);
}

}  // namespace
}  // namespace kwb::library
