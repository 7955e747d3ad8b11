// Promotion where the incumbents hold shape regions (docs/library.md "Shape regions"): a candidate
// that won one region only is written for that region only, with its bounds in the dispatch entry,
// its metadata and the commit's trailers; the other region keeps its incumbent; a stale comparison
// is a conflict and a candidate that won no region is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/promotion.hpp"
#include "library/referee.hpp"
#include "library/snapshot.hpp"
#include "spec/loader.hpp"
#include "temp_dir.hpp"
#include "util/hash.hpp"

namespace kwb::library {
namespace {

using kwb::test::TempDir;

void write_kernel(const std::filesystem::path& kernels, const std::string& name, const std::string& region) {
  auto dir = kernels / "vector_add" / "cpu";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / (name + ".cpp")) << "// " << name << "\n";
  std::ofstream(dir / (name + ".json")) << R"({"op": "vector_add", "variant": "f32", "backend": "cpu",
    "entry": "kwb_vector_add_f32", "region": )" << region << "}";
}

struct Fixture {
  TempDir dir;
  std::unique_ptr<Repository> repo;
  std::optional<spec::Catalog> catalog;
  Fixture() {
    write_kernel(dir / "kernels", "small", R"({"n": [1, 1500000]})");
    write_kernel(dir / "kernels", "large", R"({"n": [1500001, 9223372036854775807]})");
    auto r = Repository::open_or_seed(dir / "lib", dir / "kernels");
    if (!r) throw std::runtime_error(r.error().what());
    repo = std::move(*r);
    auto c = spec::Catalog::load(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs");
    if (!c) throw std::runtime_error(c.error().what());
    catalog.emplace(std::move(*c));
  }
  // An accepted verdict with the shipped spec's CPU bench workloads n1M (region small) and n16M
  // (region large), each with its ratio against its region's incumbent, decided per region.
  PromotionRequest request(const std::string& id, double n1m, double n16m) {
    core::Verdict v;
    v.op = "vector_add", v.variant = "f32", v.backend = "cpu", v.status = core::Status::accepted;
    v.reason = "correct", v.device = "test cpu", v.toolchain = "g++ test";
    core::Decision d;
    for (auto [name, ratio] : {std::pair{"n1M", n1m}, {"n16M", n16m}}) {
      core::WorkloadResult w;
      w.name = name, w.kind = "bench", w.time = core::TimeStats{}, w.time->median_ns = 1000, w.vs_incumbent = ratio;
      w.params = {{"n", std::string(name) == "n1M" ? 1048576 : 16777216}};
      v.workloads.push_back(w);
      (ratio > 1 ? d.wins : d.regressions).push_back(name);
    }
    d.promotable = !d.wins.empty();
    d.reason = "per region";
    v.summary.decision = d;
    v.summary.beats_incumbent = d.promotable;
    v.summary.geomean_vs_incumbent = std::sqrt(n1m * n16m);
    auto src = *repo->read("vector_add/cpu/large.cpp");
    v.summary.incumbent = core::IncumbentRef{"vector_add/cpu/large.cpp", *repo->head(), util::sha256_hex(src), "any"};
    core::Candidate cand{id, "vector_add", "f32", "cpu", "// " + id + "\n", "c.cpp", {}, "wins large n"};
    return {cand, v, catalog->find("vector_add"), "tester"};
  }
};

TEST(PromotionRegions, AWinInOneRegionIsPromotedForThatRegionOnly) {
  Fixture f;
  auto r = promote(*f.repo, f.request("c-00000000000000aa", 0.5, 2.0));
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->kind, PromotionResult::Kind::committed) << r->reason;
  auto snap = read_head(*f.repo);
  ASSERT_TRUE(snap) << snap.error().what();
  const std::string cls = host_cpu_class();
  const auto& d = snap->dispatch;
  EXPECT_EQ(d.incumbent("vector_add", "f32", "cpu", cls, {{"n", 16777216}})->kernel, r->kernel);
  EXPECT_EQ(d.incumbent("vector_add", "f32", "cpu", cls, {{"n", 1048576}})->kernel, "vector_add/cpu/small.cpp");
  const DispatchEntry* won = d.incumbent("vector_add", "f32", "cpu", cls, {{"n", 16777216}});
  EXPECT_EQ(won->device_class, cls);
  EXPECT_EQ(won->region.text(), "n in [1500001, max]");
  ASSERT_EQ(won->configs.size(), 1u);  // its region's workloads only
  EXPECT_EQ(won->configs[0].workload, "n16M");
  EXPECT_EQ(d.entries.size(), 3u);  // both seeded regions stay, for the other classes
  auto meta = nlohmann::json::parse(*f.repo->read(std::filesystem::path(r->kernel).replace_extension(".json")));
  EXPECT_EQ(meta["region"].dump(), R"({"n":[1500001,9223372036854775807]})");
  EXPECT_EQ(meta["evidence"]["replaces"], "vector_add/cpu/large.cpp");
  auto log = f.repo->log("", 1);
  ASSERT_TRUE(log && !log->empty());
  EXPECT_EQ(log->front().trailers["Kwb-Region"], "n in [1500001, max]");
  EXPECT_EQ(log->front().trailers["Kwb-Replaces"], "vector_add/cpu/large.cpp");
  EXPECT_NE(log->front().summary.find("for n in [1500001, max]"), std::string::npos) << log->front().summary;

  // A second candidate compared before that promotion: its regions' incumbents changed.
  auto before = f.request("c-00000000000000bb", 0.5, 3.0);
  auto history = f.repo->log("", 2);
  ASSERT_TRUE(history && history->size() == 2);
  before.verdict.summary.incumbent->commit = history->back().id;  // the seed commit
  auto stale = promote(*f.repo, before);
  ASSERT_TRUE(stale) << stale.error().what();
  EXPECT_EQ(stale->kind, PromotionResult::Kind::conflict) << stale->reason;
  EXPECT_NE(stale->reason.find("incumbents of the regions of vector_add/f32/cpu changed"), std::string::npos) << stale->reason;
}

TEST(PromotionRegions, WinningBothRegionsWritesOneEntryPerRegion) {
  Fixture f;
  auto r = promote(*f.repo, f.request("c-00000000000000cc", 2.0, 2.0));
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->kind, PromotionResult::Kind::committed) << r->reason;
  auto snap = read_head(*f.repo);
  const std::string cls = host_cpu_class();
  EXPECT_EQ(snap->dispatch.incumbent("vector_add", "f32", "cpu", cls, {{"n", 1048576}})->kernel, r->kernel);
  EXPECT_EQ(snap->dispatch.incumbent("vector_add", "f32", "cpu", cls, {{"n", 16777216}})->kernel, r->kernel);
  auto meta = nlohmann::json::parse(*f.repo->read(std::filesystem::path(r->kernel).replace_extension(".json")));
  EXPECT_EQ(meta["regions"].size(), 2u);
}

TEST(PromotionRegions, ACandidateThatWonNoRegionIsRefused) {
  Fixture f;
  auto req = f.request("c-00000000000000dd", 2.0, 0.5);
  req.verdict.summary.decision->wins = {"n1M"};
  req.verdict.summary.decision->regressions = {"n16M"};
  req.verdict.summary.decision->undecided = {"n1M"};  // too noisy where it was faster: no region won
  auto r = promote(*f.repo, req);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->kind, PromotionResult::Kind::refused);
  EXPECT_NE(r->reason.find("wins no region"), std::string::npos) << r->reason;
}

}  // namespace
}  // namespace kwb::library
